import type { ExchangeRateRow } from '../tables.ts'

/** An exchange rate as the API shows it: one `fromCurrency` buys `rate` units of `toCurrency`. */
export interface ExchangeRate {
  fromCurrency: string
  toCurrency: string
  rate: string
  createdAt: string
  updatedAt: string
}

/** At most 12 digits before and after the point: exact, and far beyond any real rate. */
export const RATE_PATTERN = /^\d{1,12}(\.\d{1,12})?$/

/** The canonical text of a rate: no leading zeros before the point, no trailing zeros after it. */
export function normalizeRate(rate: string): string {
  const [whole = '0', fraction = ''] = rate.split('.')
  const w = whole.replace(/^0+(?=\d)/, '')
  const f = fraction.replace(/0+$/, '')
  return f ? `${w}.${f}` : w
}

/**
 * Converts cents at an exact decimal rate with integer arithmetic only, rounding half away
 * from zero to whole cents (so -0.5 becomes -1, as +0.5 becomes +1).
 */
export function convertCents(cents: number, rate: string): number {
  const result = Number(convertCentsExact(BigInt(cents), rate))
  if (!Number.isSafeInteger(result))
    throw new RangeError('Converted amount is beyond the exact integer range.')
  return result
}

/**
 * The same conversion on exact integers, for totals that may pass 2^53: a rate of up to 12
 * digits times a large amount does, and a report must not fail on it.
 */
export function convertCentsExact(cents: bigint, rate: string): bigint {
  const [whole = '0', fraction = ''] = rate.split('.')
  const scale = 10n ** BigInt(fraction.length)
  const product = cents * BigInt(whole + fraction)
  const negative = product < 0n
  const magnitude = negative ? -product : product
  let quotient = magnitude / scale
  if ((magnitude % scale) * 2n >= scale) quotient += 1n
  return negative ? -quotient : quotient
}

export function toExchangeRate(row: ExchangeRateRow): ExchangeRate {
  return {
    fromCurrency: row.from_currency,
    toCurrency: row.to_currency,
    rate: normalizeRate(row.rate),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}
