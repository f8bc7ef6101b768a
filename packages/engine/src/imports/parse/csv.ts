import Papa from 'papaparse'
import {
  isRealDay,
  parseCents,
  type RefusedRow,
  type Statement,
  StatementError,
  type StatementRow,
} from './statement.ts'

/** Day formats a CSV may use; slashes are ambiguous and must be said when the file cannot tell. */
export const CSV_DATE_FORMATS = ['YYYY-MM-DD', 'MM/DD/YYYY', 'DD/MM/YYYY', 'DD.MM.YYYY'] as const
export type CsvDateFormat = (typeof CSV_DATE_FORMATS)[number]

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
  dateFormat?: CsvDateFormat
  /** The decimal separator; the other one is the thousands separator. Guessed when left out. */
  decimal?: '.' | ','
  /** Turn every sign around (a card export that lists spending as positive). */
  invert?: boolean
  /** `,`, `;` or a tab; guessed when left out. */
  delimiter?: ',' | ';' | '\t'
  /** Whether the first line names the columns (default true). */
  header?: boolean
}

const GUESS: [keyof CsvMapping, RegExp][] = [
  ['date', /^(date|booking date|posted|posting date|transaction date|buchungstag|datum|valuta)$/i],
  ['amount', /^(amount|betrag|value|amount \(\w+\))$/i],
  ['debit', /^(debit|withdrawal|withdrawals|soll|out|paid out)$/i],
  ['credit', /^(credit|deposit|deposits|haben|in|paid in)$/i],
  [
    'payee',
    /^(payee|description|name|merchant|counterparty|beguenstigter\/zahlungspflichtiger|empfänger|auftraggeber)$/i,
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

/** Where each format keeps year, month and day among the three numbers it holds. */
const DAY_PATTERNS: Record<CsvDateFormat, { re: RegExp; y: number; m: number; d: number }> = {
  'YYYY-MM-DD': { re: /^(\d{4})-(\d{1,2})-(\d{1,2})/, y: 1, m: 2, d: 3 },
  'MM/DD/YYYY': { re: /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/, y: 3, m: 1, d: 2 },
  'DD/MM/YYYY': { re: /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/, y: 3, m: 2, d: 1 },
  'DD.MM.YYYY': { re: /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/, y: 3, m: 2, d: 1 },
}

function day(text: string, format: CsvDateFormat): string | null {
  const p = DAY_PATTERNS[format]
  const m = p.re.exec(text.trim())
  if (!m) return null
  const out = `${m[p.y]}-${m[p.m]!.padStart(2, '0')}-${m[p.d]!.padStart(2, '0')}`
  return isRealDay(out) ? out : null
}

/**
 * The day format most values show (a stray bad row does not decide it); slashed days that could
 * be either month or day first are refused (400) until the caller says which.
 */
function guessDateFormat(values: readonly string[]): CsvDateFormat {
  const v = values.map((s) => s.trim()).filter((s) => s !== '')
  const iso = v.filter((s) => /^\d{4}-\d{1,2}-\d{1,2}/.test(s)).length
  const dotted = v.filter((s) => /^\d{1,2}\.\d{1,2}\.\d{4}$/.test(s)).length
  const slashed = v.filter((s) => /^\d{1,2}\/\d{1,2}\/\d{4}$/.test(s))
  if (iso >= dotted && iso >= slashed.length) return 'YYYY-MM-DD'
  if (dotted >= slashed.length) return 'DD.MM.YYYY'
  const first = slashed.some((s) => Number(s.split('/')[0]) > 12)
  const second = slashed.some((s) => Number(s.split('/')[1]) > 12)
  if (first && !second) return 'DD/MM/YYYY'
  if (second && !first) return 'MM/DD/YYYY'
  throw new StatementError(
    'IMPORT_DATE_FORMAT_AMBIGUOUS',
    'The dates could be MM/DD/YYYY or DD/MM/YYYY; say which in mapping.dateFormat.',
    'mapping.dateFormat',
  )
}

/**
 * Reads a bank's CSV export with papaparse (quotes, embedded separators and line breaks, any of
 * `,` `;` tab) and a column mapping the caller gives or the header suggests. Amounts are exact
 * cents with the decimal separator given or guessed (a value ending in `,dd` means a decimal
 * comma); rows whose day or amount cannot be read are refused by line, the rest kept.
 */
export function parseCsv(text: string, given: CsvMapping = {}): Statement {
  const parsed = Papa.parse<string[]>(text.replace(/^\uFEFF/, ''), {
    delimiter: given.delimiter ?? '',
    skipEmptyLines: 'greedy',
  })
  const table = parsed.data
  if (table.length === 0) throw new StatementError('IMPORT_FILE_EMPTY', 'The file holds no rows.')
  const hasHeader = given.header ?? true
  const header = hasHeader ? table[0]!.map((h) => h.trim()) : []
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
        `No column named ${JSON.stringify(name)}; the header has ${header.map((h) => JSON.stringify(h)).join(', ')}.`,
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
  const body = table.slice(hasHeader ? 1 : 0)
  const first = hasHeader ? 2 : 1
  const amountValues = body.flatMap((r) =>
    [amountCol, debitCol, creditCol].flatMap((c) => (c === null ? [] : [r[c] ?? ''])),
  )
  const decimal =
    mapping.decimal ??
    (amountValues.some((v) => /,\d{1,2}\s*$/.test(v.trim()) && !/\.\d{1,2}$/.test(v.trim())) ? ',' : '.')
  const dateFormat = mapping.dateFormat ?? guessDateFormat(body.map((r) => r[dateCol] ?? ''))
  const rows: StatementRow[] = []
  const refused: RefusedRow[] = []
  const cell = (r: string[], c: number | null) => (c === null ? null : (r[c] ?? '').trim() || null)
  // Papaparse keeps line breaks inside quotes in a cell; count them to keep line numbers true.
  let line = first
  for (const r of body) {
    const here = line
    line += 1 + r.reduce((n, c) => n + (c.match(/\n/g)?.length ?? 0), 0)
    const date = day(r[dateCol] ?? '', dateFormat)
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
        line: here,
        reason: `${JSON.stringify(r[dateCol] ?? '')} is not a day as ${dateFormat}.`,
      })
    else if (cents === null)
      refused.push({ line: here, reason: 'The amount is missing or not an amount in cents.' })
    else {
      rows.push({
        line: here,
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
