import Papa from 'papaparse'
import {
  isRealDay,
  parseCents,
  type RefusedRow,
  type Statement,
  StatementError,
  type StatementRow,
} from './statement.ts'

/**
 * Day patterns the reader tells apart on its own; any other pattern of the grammar
 * (`parseDatePattern`) may be given in the mapping.
 */
export const CSV_DATE_FORMATS = [
  'YYYY-MM-DD',
  'MM/DD/YYYY',
  'DD/MM/YYYY',
  'DD.MM.YYYY',
  'MM/DD/YY',
  'DD/MM/YY',
  'DD.MM.YY',
] as const
/**
 * A day pattern: `DD`, `MM` and `YYYY` or `YY`, each once, in any order, joined by one
 * separator (`.`, `/`, `-` or a space, the same twice) or by none (`YYYYMMDD`). Upper case.
 */
export type CsvDateFormat = string

/** Which column holds what (a header name, or a 0-based index as a string of digits), and how to read it. */
export interface CsvMapping {
  date?: string
  /** One signed amount column; or `debit` and `credit`, two unsigned columns. */
  amount?: string
  debit?: string
  credit?: string
  payee?: string
  memo?: string
  externalId?: string
  /** The day pattern (`DD.MM.YY`, `MM/DD/YYYY`, …); told from the file when left out. */
  dateFormat?: CsvDateFormat
  /** The decimal separator; the other one is the thousands separator. Guessed when left out. */
  decimal?: '.' | ','
  /** Turn every sign around (a card export that lists spending as positive). */
  invert?: boolean
  /** `,`, `;` or a tab; guessed when left out. */
  delimiter?: ',' | ';' | '\t'
  /** Whether a line names the columns (default true). */
  header?: boolean
  /**
   * The file's line (1-based, blank lines counted) that names the columns; the lines above it
   * (a bank's preamble) are skipped. Left out, the first line naming the mapped columns (or,
   * without names, a date and an amount column) is the header, else the first line.
   */
  headerLine?: number
}

const GUESS: [keyof CsvMapping, RegExp][] = [
  ['date', /^(date|booking date|posted|posting date|transaction date|buchungstag|datum|valuta)$/i],
  ['amount', /^(amount|betrag|value)( \(\w+\))?$/i],
  ['debit', /^(debit|withdrawal|withdrawals|soll|out|paid out)$/i],
  ['credit', /^(credit|deposit|deposits|haben|in|paid in)$/i],
  [
    'payee',
    /^(payee|description|name|merchant|counterparty|beguenstigter\/zahlungspflichtiger|empfänger|auftraggeber|auftraggeber ?\/ ?begünstigter)$/i,
  ],
  ['memo', /^(memo|notes?|reference|verwendungszweck|details)$/i],
  ['externalId', /^(id|transaction id|fitid|reference number|transaktions-id)$/i],
]

/** The mapping a header suggests: each field to the first column whose name fits it. */
export function guessMapping(header: readonly string[]): CsvMapping {
  const out: CsvMapping = {}
  for (const [field, re] of GUESS) {
    const hit = header.find((h) => re.test(h.trim()))
    if (hit !== undefined) (out as Record<string, string>)[field] = hit
  }
  return out
}

const PATTERN = /^(DD|MM|YYYY|YY)([./\- ]?)(DD|MM|YYYY|YY)\2(DD|MM|YYYY|YY)$/

/** A day pattern compiled: where day, month and year sit among the three numbers, the year's width. */
interface DatePattern {
  re: RegExp
  d: number
  m: number
  y: number
  yearDigits: 2 | 4
}

/** The pattern, or null when it is not one of the grammar's (see CsvDateFormat). */
export function parseDatePattern(pattern: string): DatePattern | null {
  const m = PATTERN.exec(pattern)
  if (!m) return null
  const parts = [m[1]!, m[3]!, m[4]!]
  const index = (test: (p: string) => boolean) => parts.findIndex(test) + 1
  const d = index((p) => p === 'DD')
  const mo = index((p) => p === 'MM')
  const y = index((p) => p.startsWith('Y'))
  if (!d || !mo || !y || new Set(parts.map((p) => p[0])).size !== 3) return null
  const sep = m[2]!
  const yearDigits = parts[y - 1]!.length as 2 | 4
  // With a separator a day or month may drop its leading zero; without one every width is fixed.
  const group = (p: string) =>
    p.startsWith('Y') ? `(\\d{${p.length}})` : sep === '' ? '(\\d{2})' : '(\\d{1,2})'
  const esc = sep.replace(/[./-]/, '\\$&')
  // A time after the day (`2025-03-01T10:00`, `01.03.25 10:00`) is ignored.
  const re = new RegExp(`^${parts.map(group).join(esc)}(?:[ T].*)?$`)
  return { re, d, m: mo, y, yearDigits }
}

/**
 * The year of a two-digit year, by a fixed pivot (as POSIX strptime's `%y`): 69–99 are
 * 1969–1999, 00–68 are 2000–2068.
 */
export function fullYear(yy: number): number {
  return yy >= 69 ? 1900 + yy : 2000 + yy
}

function day(text: string, pattern: DatePattern): string | null {
  const m = pattern.re.exec(text.trim())
  if (!m) return null
  const year = pattern.yearDigits === 2 ? String(fullYear(Number(m[pattern.y]))) : m[pattern.y]!
  const out = `${year}-${m[pattern.m]!.padStart(2, '0')}-${m[pattern.d]!.padStart(2, '0')}`
  return isRealDay(out) ? out : null
}

const DETECTED = [
  'YYYY-MM-DD',
  'YYYY/MM/DD',
  'YYYY.MM.DD',
  'YYYYMMDD',
  ...['/', '-', '.'].flatMap((sep) =>
    ['DD', 'MM'].flatMap((first) =>
      ['YYYY', 'YY'].map((year) => [first, first === 'DD' ? 'MM' : 'DD', year].join(sep)),
    ),
  ),
].map((format) => ({ format, pattern: parseDatePattern(format)! }))

/**
 * The day pattern that reads the most values (a stray bad row does not decide it), among
 * year-first patterns with a four-digit year and day- or month-first ones with a two- or
 * four-digit year, separated by `-`, `/` or `.` (or `YYYYMMDD`). Dotted days are day-first, as
 * everywhere they are written; a tie between day- and month-first (every day and month at most
 * 12) is refused until the caller says which, as are days no pattern reads.
 */
export function guessDateFormat(values: readonly string[]): CsvDateFormat | null {
  const v = values.map((s) => s.trim()).filter((s) => s !== '')
  if (v.length === 0) return null
  const scored = DETECTED.map((c) => ({
    format: c.format,
    score: v.filter((s) => day(s, c.pattern) !== null).length,
  }))
  const best = Math.max(...scored.map((c) => c.score))
  if (best === 0) {
    throw new StatementError(
      'IMPORT_DATE_FORMAT_UNKNOWN',
      `No day pattern reads the dates (${JSON.stringify(v[0])}); say it in mapping.dateFormat, e.g. DD.MM.YY or MM/DD/YYYY.`,
      'mapping.dateFormat',
    )
  }
  let top = scored.filter((c) => c.score === best).map((c) => c.format)
  if (top.length > 1 && top.every((f) => f.includes('.'))) top = top.filter((f) => f.startsWith('DD'))
  if (top.length > 1) {
    throw new StatementError(
      'IMPORT_DATE_FORMAT_AMBIGUOUS',
      `The dates could be ${top.join(' or ')}; say which in mapping.dateFormat.`,
      'mapping.dateFormat',
    )
  }
  return top[0]!
}

const COLUMN_FIELDS = ['date', 'amount', 'debit', 'credit', 'payee', 'memo', 'externalId'] as const

const isBlank = (row: readonly string[]) => row.every((c) => c.trim() === '')

/**
 * The index of the first of the first 50 rows that holds every column the mapping names (or,
 * naming none, where a date and an amount column can be guessed), or -1.
 */
function findHeader(table: string[][], given: CsvMapping): number {
  const named = COLUMN_FIELDS.map((f) => given[f]).filter(
    (n): n is string => n !== undefined && !/^\d+$/.test(n),
  )
  const fits = (row: string[]) => {
    const header = row.map((h) => h.trim())
    if (named.length > 0) return named.every((n) => header.includes(n))
    const g = guessMapping(header)
    return g.date !== undefined && (g.amount ?? g.debit ?? g.credit) !== undefined
  }
  let seen = 0
  for (let i = 0; i < table.length && seen < 50; i++) {
    if (isBlank(table[i]!)) continue
    seen++
    if (fits(table[i]!)) return i
  }
  return -1
}

/** The header row's index on `headerLine`, refused when that line holds no row. */
function headerAt(table: string[][], lines: number[], headerLine: number): number {
  const i = lines.indexOf(headerLine)
  if (i >= 0 && !isBlank(table[i]!)) return i
  const last = lines.at(-1) ?? 0
  throw new StatementError(
    'IMPORT_COLUMN_MISSING',
    headerLine > last
      ? `The file has ${last} lines; mapping.headerLine is ${headerLine}.`
      : `Line ${headerLine} is blank or inside a quoted cell; say the line that names the columns.`,
    'mapping.headerLine',
  )
}

/** Parses the file's rows, blank ones kept, each with the line it starts on. */
function table(text: string, delimiter: string): { rows: string[][]; lines: number[]; delimiter: string } {
  const parsed = Papa.parse<string[]>(text, { delimiter, skipEmptyLines: false })
  // Papaparse keeps line breaks inside quotes in a cell, and blank lines are rows of their own
  // here, so counting both keeps line numbers true.
  const lines: number[] = []
  let next = 1
  for (const r of parsed.data) {
    lines.push(next)
    next += 1 + r.reduce((n, c) => n + (c.match(/\r\n|\r|\n/g)?.length ?? 0), 0)
  }
  return { rows: parsed.data, lines, delimiter: parsed.meta.delimiter }
}

/**
 * The file as rows and where its header is. Without a delimiter papaparse guesses one; when a
 * header is looked for and its guess shows none (a preamble, or decimal commas in a `;` file,
 * can mislead it), the delimiter under which the header is found wins.
 */
function tableWithHeader(text: string, given: CsvMapping): { rows: string[][]; lines: number[]; at: number } {
  const hasHeader = given.header ?? true
  const guessed = table(text, given.delimiter ?? '')
  if (!hasHeader) return { ...guessed, at: -1 }
  if (given.headerLine !== undefined)
    return { ...guessed, at: headerAt(guessed.rows, guessed.lines, given.headerLine) }
  const at = findHeader(guessed.rows, given)
  if (at >= 0) return { ...guessed, at }
  if (given.delimiter === undefined) {
    for (const d of [';', ',', '\t']) {
      if (d === guessed.delimiter) continue
      const other = table(text, d)
      const found = findHeader(other.rows, given)
      if (found >= 0) return { ...other, at: found }
    }
  }
  const first = guessed.rows.findIndex((r) => !isBlank(r))
  return { ...guessed, at: Math.max(first, 0) }
}

/**
 * Reads a bank's CSV export with papaparse (quotes, embedded separators and line breaks, any of
 * `,` `;` tab) and a column mapping the caller gives or the header suggests. A preamble above the
 * header (a bank's account details) is skipped: the header is `headerLine`, or the first line
 * naming the mapped columns. Amounts are exact cents with the decimal separator given or guessed
 * (a value ending in `,dd` means a decimal comma); days are read in the pattern given or told
 * from the file. Rows whose day or amount cannot be read are refused by their line in the file
 * (blank lines and line breaks inside quotes counted), the rest kept.
 */
export function parseCsv(text: string, given: CsvMapping = {}): Statement {
  const clean = text.replace(/^\uFEFF/, '')
  if (clean.trim() === '') throw new StatementError('IMPORT_FILE_EMPTY', 'The file holds no rows.')
  const { rows: table, lines, at } = tableWithHeader(clean, given)
  const hasHeader = at >= 0
  const header = hasHeader ? table[at]!.map((h) => h.trim()) : []
  const mapping: CsvMapping = { ...(hasHeader ? guessMapping(header) : {}), ...given }
  if (given.amount !== undefined) {
    if (given.debit === undefined) delete mapping.debit
    if (given.credit === undefined) delete mapping.credit
  }
  const column = (field: keyof CsvMapping): number | null => {
    const name = mapping[field] as string | undefined
    if (name === undefined) return null
    if (/^\d+$/.test(name) && !header.includes(name)) return Number(name)
    const i = header.indexOf(name)
    if (i < 0)
      throw new StatementError(
        'IMPORT_COLUMN_MISSING',
        `No column named ${JSON.stringify(name)}; the header (line ${lines[at]}) has ${header.map((h) => JSON.stringify(h)).join(', ')}.`,
        `mapping.${field}`,
      )
    return i
  }
  const dateCol = column('date')
  if (dateCol === null)
    throw new StatementError(
      'IMPORT_COLUMN_MISSING',
      'Say which column holds the date (mapping.date).',
      'mapping.date',
    )
  const amountCol = column('amount')
  const debitCol = amountCol === null ? column('debit') : null
  const creditCol = amountCol === null ? column('credit') : null
  if (amountCol === null && debitCol === null && creditCol === null) {
    throw new StatementError(
      'IMPORT_COLUMN_MISSING',
      'Say which column holds the amount (mapping.amount), or the debit and credit columns.',
      'mapping.amount',
    )
  }
  const payeeCol = column('payee')
  const memoCol = column('memo')
  const idCol = column('externalId')
  const body = table.flatMap((r, i) => (i > at && !isBlank(r) ? [{ r, line: lines[i]! }] : []))
  const amountValues = body.flatMap(({ r }) =>
    [amountCol, debitCol, creditCol].flatMap((c) => (c === null ? [] : [r[c] ?? ''])),
  )
  const decimal =
    mapping.decimal ??
    (amountValues.some((v) => /,\d{1,2}\s*$/.test(v.trim()) && !/\.\d{1,2}$/.test(v.trim())) ? ',' : '.')
  const dateFormat = mapping.dateFormat ?? guessDateFormat(body.map(({ r }) => r[dateCol] ?? ''))
  const pattern = dateFormat === null ? null : parseDatePattern(dateFormat)
  if (dateFormat !== null && pattern === null)
    throw new StatementError(
      'VALIDATION_FAILED',
      `${JSON.stringify(dateFormat)} is not a day pattern (DD, MM and YY or YYYY, joined by . / - or a space).`,
      'mapping.dateFormat',
    )
  const rows: StatementRow[] = []
  const refused: RefusedRow[] = []
  const cell = (r: string[], c: number | null) => (c === null ? null : (r[c] ?? '').trim() || null)
  for (const { r, line } of body) {
    const dateText = r[dateCol] ?? ''
    const date = pattern === null ? null : day(dateText, pattern)
    let cents: number | null
    if (amountCol !== null) cents = parseCents(r[amountCol] ?? '', decimal)
    else {
      const debit = cell(r, debitCol)
      const credit = cell(r, creditCol)
      const d = debit === null ? 0 : parseCents(debit, decimal)
      const c = credit === null ? 0 : parseCents(credit, decimal)
      cents = d === null || c === null || (debit === null && credit === null) ? null : c - Math.abs(d)
    }
    if (date === null)
      refused.push({
        line,
        reason:
          dateText.trim() === ''
            ? `The date column (${JSON.stringify(header[dateCol] ?? String(dateCol))}) is empty.`
            : `${JSON.stringify(dateText)} is not a day as ${dateFormat}.`,
      })
    else if (cents === null)
      refused.push({ line, reason: 'The amount is missing or not an amount in cents.' })
    else {
      rows.push({
        line,
        date,
        amountCents: mapping.invert ? -cents : cents,
        payee: cell(r, payeeCol),
        memo: cell(r, memoCol),
        externalId: cell(r, idCol),
      })
    }
  }
  return { format: 'csv', currency: null, bankAccountId: null, ledgerBalance: null, rows, refused }
}
