/**
 * The household's transactions as a CSV file (RFC 4180: comma-separated, CRLF lines, fields with
 * a comma, quote or line break in double quotes), safe to open in a spreadsheet: a text cell that
 * begins with =, +, -, @, a tab or a carriage return is a formula to Excel, LibreOffice and Google
 * Sheets (CSV injection), so it is written with a leading apostrophe, which they show as text. A
 * plain number ("-12.30") is left as it is: it is no formula, and stays a number.
 */

/** A row of the file, in the order of `CSV_HEADER`. */
export interface CsvTransaction {
  date: string
  account: string
  payee: string
  category: string
  memo: string
  amountCents: string
  currency: string
  status: string
}

export const CSV_HEADER = ['Date', 'Account', 'Payee', 'Category', 'Memo', 'Amount', 'Currency', 'Status']

const FORMULA_START = /^[=+\-@\t\r]/
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/

/** One cell: neutralised when a spreadsheet would read it as a formula, then quoted when it must be. */
export function csvCell(value: string): string {
  const safe = FORMULA_START.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(safe) || safe !== safe.trim() ? `"${safe.replaceAll('"', '""')}"` : safe
}

/** Integer cents as a decimal with two places, never through a float: "-1234.05". */
export function centsToDecimal(cents: string): string {
  const value = BigInt(cents)
  const abs = value < 0n ? -value : value
  return `${value < 0n ? '-' : ''}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`
}

/** The file: the header, then one line per transaction, each line ending in CRLF. */
export function transactionsCsv(rows: Iterable<CsvTransaction>): string {
  const lines = [CSV_HEADER.map(csvCell).join(',')]
  for (const r of rows) {
    lines.push(
      [r.date, r.account, r.payee, r.category, r.memo, centsToDecimal(r.amountCents), r.currency, r.status]
        .map(csvCell)
        .join(','),
    )
  }
  return `${lines.join('\r\n')}\r\n`
}
