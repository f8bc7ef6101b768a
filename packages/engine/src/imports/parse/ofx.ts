import {
  isRealDay,
  parseCents,
  type RefusedRow,
  type Statement,
  StatementError,
  type StatementRow,
} from './statement.ts'
import { at, listOf, parseXml, textOf } from './xml.ts'

// Every level that may repeat: a bank may send two statements in one STMTTRNRS (Banco do Brasil
// sends an empty one, then the one with the rows), or two transaction lists in one statement.
const ARRAYS = new Set([
  'BANKMSGSRSV1',
  'CREDITCARDMSGSRSV1',
  'STMTTRNRS',
  'CCSTMTTRNRS',
  'STMTRS',
  'CCSTMTRS',
  'BANKTRANLIST',
  'STMTTRN',
])

/** The elements at the end of a path, each step of which may repeat. */
function all(node: unknown, ...path: string[]): unknown[] {
  let level = listOf(node)
  for (const key of path) level = level.flatMap((n) => listOf(at(n, key)))
  return level
}

/**
 * OFX 1.x is SGML: a leaf element is not closed (`<TRNAMT>-12.50`). Closing each leaf that is
 * not already closed turns it into the XML OFX 2.x is, so one XML parser reads both. Aggregates
 * (`<STMTTRN>`) are closed in both versions; only a leaf holds text on its own line.
 */
export function sgmlToXml(body: string): string {
  // One pass over the tags (a backtracking regex over a 10,000-row file cost a second): a tag
  // `<NAME>` holding text, not followed by its own `</NAME>`, is a leaf to close.
  const parts = body.split('<')
  const out = [parts[0]!]
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i]!
    const close = part.indexOf('>')
    const tag = close > 0 ? part.slice(0, close) : ''
    const value = tag === '' ? '' : part.slice(close + 1).trim()
    if (value === '' || !LEAF_TAG.test(tag) || parts[i + 1]?.startsWith(`/${tag}>`) !== false) {
      out.push(`<${part}`)
      continue
    }
    out.push(`<${tag}>${value.replace(/&(?![a-zA-Z#][a-zA-Z0-9]*;)/g, '&amp;')}</${tag}>`)
  }
  return out.join('')
}

const LEAF_TAG = /^[A-Za-z0-9.]+$/

/** The day of an OFX date-time (`20240311`, `20240311120000.000[-5:EST]`): the bank's own day. */
function ofxDay(text: string | null): string | null {
  const m = text ? /^(\d{4})(\d{2})(\d{2})/.exec(text) : null
  if (!m) return null
  const day = `${m[1]}-${m[2]}-${m[3]}`
  return isRealDay(day) ? day : null
}

/**
 * The bank's identity of a statement's account: `BANKID/ACCTID` for a bank account (the ACCTID
 * alone when the bank sends no BANKID), the ACCTID for a card; upper case, without spaces.
 */
function ofxAccount(statement: unknown): string | null {
  const fold = (s: string | null) => s?.replace(/\s+/g, '').toUpperCase() || null
  const bank = at(statement, 'BANKACCTFROM')
  if (bank !== undefined) {
    const acct = fold(textOf(at(bank, 'ACCTID')))
    const bankId = fold(textOf(at(bank, 'BANKID')))
    return acct && bankId ? `${bankId}/${acct}` : acct
  }
  return fold(textOf(at(statement, 'CCACCTFROM', 'ACCTID')))
}

/** The 1-based line of each `<STMTTRN>` in the file, in order, for refusals. */
function rowLines(text: string): number[] {
  const lines: number[] = []
  let line = 1
  let from = 0
  for (const m of text.matchAll(/<STMTTRN>/gi)) {
    for (let i = from; i < m.index; i++) if (text.charCodeAt(i) === 10) line++
    from = m.index
    lines.push(line)
  }
  return lines
}

/**
 * Reads an OFX or QFX file (1.02 SGML with unclosed tags, or 2.x XML), bank or credit-card
 * statements: each STMTTRN becomes a row, FITID its external id, NAME (or PAYEE.NAME) its payee
 * and MEMO its memo; CURDEF is the currency and LEDGERBAL the file's balance. A file holding
 * statements of more than one account is refused: import one account at a time.
 */
export function parseOfx(text: string): Statement {
  const start = text.search(/<OFX>/i)
  if (start < 0)
    throw new StatementError('IMPORT_FILE_UNREADABLE', 'No <OFX> element: this is not an OFX or QFX file.')
  const end = text.search(/<\/OFX>/i)
  if (end < 0)
    throw new StatementError('IMPORT_FILE_TRUNCATED', 'The file ends before </OFX>: it was cut short.')
  const isXml = /^\s*<\?xml/i.test(text) || /<\?OFX/i.test(text.slice(0, start))
  const body = text.slice(start, end + '</OFX>'.length)
  const doc = parseXml(isXml ? body : sgmlToXml(body), ARRAYS)
  const ofx = at(doc, 'OFX')
  const statements = [
    ...all(ofx, 'BANKMSGSRSV1', 'STMTTRNRS', 'STMTRS'),
    ...all(ofx, 'CREDITCARDMSGSRSV1', 'CCSTMTTRNRS', 'CCSTMTRS'),
  ]
  if (statements.length === 0)
    throw new StatementError('IMPORT_FILE_UNREADABLE', 'The OFX file holds no bank or credit-card statement.')
  const transactionsOf = (s: unknown) => all(s, 'BANKTRANLIST', 'STMTTRN')
  const withRows = statements.filter((s) => transactionsOf(s).length > 0)
  const accounts = new Set(
    (withRows.length > 0 ? withRows : statements).map(ofxAccount).filter((a) => a !== null),
  )
  if (accounts.size > 1) {
    throw new StatementError(
      'IMPORT_MULTIPLE_ACCOUNTS',
      `The file holds statements of ${accounts.size} accounts (${[...accounts].join(', ')}); export one account per file.`,
    )
  }
  const lines = rowLines(text.slice(0, end))
  const rows: StatementRow[] = []
  const refused: RefusedRow[] = []
  let n = 0
  let ledgerBalance: Statement['ledgerBalance'] = null
  let currency: string | null = null
  for (const s of statements) {
    currency ??= textOf(at(s, 'CURDEF'))
    const transactions = transactionsOf(s)
    const bal = textOf(at(s, 'LEDGERBAL', 'BALAMT'))
    const balCents = bal === null ? null : parseCents(bal.replace(',', '.'))
    // The balance of the last statement with rows (or of the last one, when none has rows).
    if (balCents !== null && (transactions.length > 0 || ledgerBalance === null || withRows.length === 0))
      ledgerBalance = { amountCents: balCents, date: ofxDay(textOf(at(s, 'LEDGERBAL', 'DTASOF'))) }
    for (const t of transactions) {
      const line = lines[n++] ?? 1
      const date = ofxDay(textOf(at(t, 'DTPOSTED')))
      const amountText = textOf(at(t, 'TRNAMT'))
      // Some banks write a decimal comma in OFX; a TRNAMT has no thousands separator.
      const amountCents = amountText === null ? null : parseCents(amountText.replace(',', '.'))
      if (date === null)
        refused.push({ line, reason: `DTPOSTED ${JSON.stringify(textOf(at(t, 'DTPOSTED')))} is not a date.` })
      else if (amountCents === null)
        refused.push({ line, reason: `TRNAMT ${JSON.stringify(amountText)} is not an amount in cents.` })
      else {
        rows.push({
          line,
          date,
          amountCents,
          payee: textOf(at(t, 'NAME')) ?? textOf(at(t, 'PAYEE', 'NAME')),
          memo: textOf(at(t, 'MEMO')),
          externalId: textOf(at(t, 'FITID')),
        })
      }
    }
  }
  return { format: 'ofx', currency, bankAccountId: [...accounts][0] ?? null, ledgerBalance, rows, refused }
}
