/** One bank row as a file states it, before it is planned against the ledger. */
export interface StatementRow {
  /** The file's line the row starts on (1-based), for refusals a person can find. */
  line: number
  /** YYYY-MM-DD, the day the bank booked it. */
  date: string
  /** Signed integer cents: negative is money out. */
  amountCents: number
  /** The payee text as the bank sent it, or null. */
  payee: string | null
  memo: string | null
  /** The bank's own id for the row (OFX FITID, camt entry reference), or null. */
  externalId: string | null
}

/** A row the file holds but that cannot be read, with where it is and why. */
export interface RefusedRow {
  line: number
  reason: string
}

/** What a bank file says: its rows, the rows it could not read, and its own figures. */
export interface Statement {
  /** The file's format, or `simplefin` for rows a bank connection fetched. */
  format: 'ofx' | 'csv' | 'camt053' | 'simplefin'
  /** ISO 4217 code the file states, or null when it states none (CSV). */
  currency: string | null
  /** The bank's account number or IBAN, when the file states one. */
  bankAccountId: string | null
  /** The ledger (closing booked) balance the file states, in cents, with its day. */
  ledgerBalance: { amountCents: number; date: string | null } | null
  rows: StatementRow[]
  refused: RefusedRow[]
}

/** A file that cannot be read at all: the whole import is refused with this reason (400). */
export class StatementError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly path = 'content',
  ) {
    super(message)
  }
}

/** The most cents an amount may hold, as every amount in the engine. */
const MAX_CENTS = 9_000_000_000_000

/**
 * Exact integer cents from a decimal amount as banks write it ("-1.234,56" with `decimal` ",",
 * "1,234.56", "(12.00)", "12-"), or null when it is not one. At most two decimals: a third is
 * not money in cents and is refused rather than rounded.
 */
export function parseCents(text: string, decimal: '.' | ',' = '.'): number | null {
  let s = text.replace(/[\s\u00a0'’]/g, '')
  if (s === '') return null
  let negative = false
  if (/^\(.*\)$/.test(s)) {
    negative = true
    s = s.slice(1, -1)
  }
  if (s.endsWith('-')) {
    negative = !negative
    s = s.slice(0, -1)
  }
  if (s.startsWith('-')) {
    negative = !negative
    s = s.slice(1)
  } else if (s.startsWith('+')) s = s.slice(1)
  s = s.replace(/^[€$£]|[€$£]$/g, '')
  const thousands = decimal === '.' ? ',' : '.'
  const [whole = '', fraction = '', ...rest] = s.split(decimal)
  if (rest.length > 0 || fraction.length > 2 || !/^\d*$/.test(fraction)) return null
  const digits = whole.includes(thousands)
    ? /^\d{1,3}(\d{3})*$/.test(whole.split(thousands).join('')) &&
      whole.split(thousands).every((g, i) => (i === 0 ? /^\d{1,3}$/.test(g) : /^\d{3}$/.test(g)))
      ? whole.split(thousands).join('')
      : null
    : whole
  if (digits === null || !/^\d*$/.test(digits) || (digits === '' && fraction === '')) return null
  const cents = Number(digits || '0') * 100 + Number(fraction.padEnd(2, '0') || '0')
  if (!Number.isSafeInteger(cents) || cents > MAX_CENTS) return null
  return negative && cents !== 0 ? -cents : cents
}

/** Whether a YYYY-MM-DD string names a real day. */
export function isRealDay(date: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date)
  if (!m) return false
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])))
  return d.toISOString().slice(0, 10) === date
}
