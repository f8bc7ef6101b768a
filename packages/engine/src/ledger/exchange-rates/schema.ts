import { z } from 'zod'
import { CurrencySchema } from '../../shared/schema.ts'
import { RATE_PATTERN } from './model.ts'

/** A positive exact decimal, given as a string (or a JSON number, read as its shortest text). */
export const RateSchema = z
  .union([z.string(), z.number().positive()])
  .transform((v) => String(v))
  .refine((s) => RATE_PATTERN.test(s), 'Must be a decimal such as "1.0825" (at most 12 digits each side).')
  .refine((s) => /[1-9]/.test(s), 'Must be greater than zero.')

/** PUT H/exchange-rates/{fromCurrency}/{toCurrency}. */
export const UpsertExchangeRateArgsSchema = z
  .strictObject({ fromCurrency: CurrencySchema, toCurrency: CurrencySchema, rate: RateSchema })
  .refine((a) => a.fromCurrency !== a.toCurrency, {
    message: 'A rate needs two different currencies.',
    path: ['toCurrency'],
  })
export type UpsertExchangeRateArgs = z.output<typeof UpsertExchangeRateArgsSchema>

/** DELETE H/exchange-rates/{fromCurrency}/{toCurrency}. */
export const DeleteExchangeRateArgsSchema = z.strictObject({
  fromCurrency: CurrencySchema,
  toCurrency: CurrencySchema,
})
export type DeleteExchangeRateArgs = z.output<typeof DeleteExchangeRateArgsSchema>

/** GET H/exchange-rates. */
export const ListExchangeRatesArgsSchema = z.strictObject({})
