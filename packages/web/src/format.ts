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

/** A refusal's words for a person. */
export function errorMessage(error: unknown): string {
  if (error && typeof error === 'object' && 'message' in error) return String((error as Error).message)
  return String(error)
}
