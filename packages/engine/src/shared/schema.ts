import { z } from 'zod'

/** A ULID: 26 Crockford base-32 characters. Callers supply new ids so replays create the same rows. */
export const UlidSchema = z
  .string()
  .regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, 'Must be a ULID (26 characters, Crockford base 32).')

/** An IANA time zone the runtime knows, such as Europe/Berlin. */
export const TimeZoneSchema = z
  .string()
  .refine(isTimeZone, 'Must be an IANA time zone such as Europe/Berlin.')

/** An ISO 4217 currency code in upper case. */
export const CurrencySchema = z.string().regex(/^[A-Z]{3}$/, 'Must be an ISO 4217 currency code such as EUR.')

/** A BCP 47 language tag, such as en or de-CH. */
export const LanguageSchema = z
  .string()
  .refine(isLanguageTag, 'Must be a BCP 47 language tag such as en or de-CH.')

/** The days a date may name. Far from the ends of YYYY, so date arithmetic stays in it. */
export const MIN_DATE = '1900-01-01'
export const MAX_DATE = '2999-12-31'

/**
 * A calendar day, YYYY-MM-DD, that exists, from MIN_DATE to MAX_DATE. Without the bounds, a
 * window ending 9999-12-31 would step past year 9999 (a six-digit year, which sorts before it)
 * and a day before 0001-01-01 is not a date PostgreSQL stores.
 */
export const DateSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Must be a date as YYYY-MM-DD.')
  .refine(
    (s) =>
      !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s),
    'Must be a real calendar day.',
  )
  .refine((s) => s >= MIN_DATE && s <= MAX_DATE, `Must be a day from ${MIN_DATE} to ${MAX_DATE}.`)

/** The largest amount, in cents, either way: ±9·10¹² (90 billion in major units). */
export const MAX_AMOUNT_CENTS = 9_000_000_000_000

const CENTS_SHAPE =
  'Must be a whole number of cents, as a JSON integer or an integer string (such as -1250 or "-1250"), not a decimal like "12.50".'

/** Integer cents, given as a JSON integer or an integer string, bounded to stay exact. */
export const CentsSchema = z
  .union([z.number().int(CENTS_SHAPE), z.string().regex(/^-?\d{1,16}$/, CENTS_SHAPE)], { error: CENTS_SHAPE })
  .transform((v) => (typeof v === 'string' ? Number(v) : v))
  .refine(
    (n) => Number.isSafeInteger(n) && Math.abs(n) <= MAX_AMOUNT_CENTS,
    `Must be between -${MAX_AMOUNT_CENTS} and ${MAX_AMOUNT_CENTS} cents.`,
  )

/** A short human name: trimmed, 1 to 200 characters. */
export const NameSchema = z
  .string()
  .trim()
  .min(1, 'Must not be empty.')
  .max(200, 'Must be at most 200 characters.')

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value })
    return value.length > 0
  } catch {
    return false
  }
}

function isLanguageTag(value: string): boolean {
  try {
    return Intl.getCanonicalLocales(value).length === 1
  } catch {
    return false
  }
}
