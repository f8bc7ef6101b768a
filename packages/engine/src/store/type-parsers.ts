import { EngineError } from '../errors.ts'

/** Postgres type oids whose parsing must match on PGlite and on `pg`. */
export const PG_TYPES = { int8: 20, numeric: 1700, date: 1082, timestamptz: 1184 } as const

/**
 * int8 becomes a JS number, refusing anything past 2^53 rather than rounding it:
 * cents stay exact, and counts come back as numbers on both drivers. Only a sum can get there
 * (each amount is at most 9 * 10^12 cents), so the refusal names totals.
 */
export function parseInt8(value: string): number {
  const n = Number(value)
  if (!Number.isSafeInteger(n)) {
    throw new EngineError(
      422,
      'TOTAL_OUT_OF_RANGE',
      `A total of ${value} cents is beyond ±9007199254740991, the largest integer this API answers exactly; ` +
        'it is refused rather than rounded.',
    )
  }
  return n
}

/** Dates stay YYYY-MM-DD strings: a calendar day has no time zone to shift it. */
export function parseDate(value: string): string {
  return value
}

/** numeric stays a string; money is never numeric, so nothing here is rounded. */
export function parseNumeric(value: string): string {
  return value
}

/** One parser table for both drivers, keyed by type oid. */
export const TYPE_PARSERS: Record<number, (value: string) => unknown> = {
  [PG_TYPES.int8]: parseInt8,
  [PG_TYPES.numeric]: parseNumeric,
  [PG_TYPES.date]: parseDate,
}
