/** Money is integer cents as decimal strings; formatting never goes through a float. */
export function formatCents(cents: string | bigint | number, currency = 'USD'): string {
  const value = BigInt(cents)
  const negative = value < 0n
  const abs = negative ? -value : value
  const whole = (abs / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  const frac = (abs % 100n).toString().padStart(2, '0')
  const symbol = SYMBOLS[currency] ?? `${currency} `
  return `${negative ? '−' : ''}${symbol}${whole}.${frac}`
}

const SYMBOLS: Record<string, string> = { USD: '$', EUR: '€', GBP: '£', JPY: '¥', CAD: 'CA$', AUD: 'A$' }

/**
 * Parses what a person types as an amount ("12", "12.5", "-3.40", "1,234.00") into integer
 * cents, or null when it is not an amount.
 */
export function parseCents(text: string): bigint | null {
  const cleaned = text.replace(/[\s,$€£¥]/g, '').replace('−', '-')
  const match = /^([+-]?)(\d*)(?:\.(\d{0,2}))?$/.exec(cleaned)
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) return null
  const cents = BigInt(match[2] || '0') * 100n + BigInt((match[3] ?? '').padEnd(2, '0') || '0')
  return match[1] === '-' ? -cents : cents
}

/** Cents as a person edits them: "-12.30". */
export function centsToInput(cents: string | bigint): string {
  const value = BigInt(cents)
  const abs = value < 0n ? -value : value
  return `${value < 0n ? '-' : ''}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`
}

/**
 * A date (YYYY-MM-DD) as this device writes dates, the way the browser's date field shows it
 * ("11/27/2026" in en-US, "27.11.2026" in de-DE), so the entry form and the rows agree. The
 * household has no locale of its own; the device's is the one its date fields use.
 */
export function formatDate(date: string, locale?: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number]
  return dateFormat(locale).format(Date.UTC(y, m - 1, d))
}

// One formatter a locale: making one costs far more than formatting, and the register's window
// formats its rows' dates as they scroll into it.
const dateFormats = new Map<string | undefined, Intl.DateTimeFormat>()
function dateFormat(locale: string | undefined): Intl.DateTimeFormat {
  let format = dateFormats.get(locale)
  if (!format) {
    format = new Intl.DateTimeFormat(locale, {
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      timeZone: 'UTC',
    })
    dateFormats.set(locale, format)
  }
  return format
}

/** Today's date on this device, YYYY-MM-DD. */
export function today(): string {
  const d = new Date()
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
}

/** This month, YYYY-MM. */
export function thisMonth(): string {
  return today().slice(0, 7)
}

/** The month `delta` months from `month` (YYYY-MM). */
export function addMonths(month: string, delta: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number]
  const index = y * 12 + (m - 1) + delta
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`
}

/** "November 2026". */
export function monthName(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number]
  return new Date(Date.UTC(y, m - 1, 1)).toLocaleString('en', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  })
}

/**
 * A refusal's words for a person: its message, and for invalid input (`VALIDATION_FAILED`) what
 * is wrong with each field ("annualRatePercent: Must be a percentage such as "6.5".").
 */
export function errorMessage(error: unknown): string {
  if (!error || typeof error !== 'object' || !('message' in error)) return String(error)
  const message = String((error as Error).message)
  const fields = (error as { errors?: unknown }).errors
  const named = Array.isArray(fields)
    ? fields.flatMap((f: { path?: unknown; message?: unknown }) =>
        typeof f?.message === 'string' ? [f.path ? `${String(f.path)}: ${f.message}` : f.message] : [],
      )
    : []
  return named.length > 0 ? `${message} ${named.join(' ')}` : message
}
