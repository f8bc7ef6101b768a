import { z } from 'zod'
import { RefIdSchema } from '../ledger/schema.ts'
import { CentsSchema, DateSchema } from '../shared/schema.ts'
import { MAX_PAYMENTS, RATE_PERCENT_PATTERN } from './amortization.ts'

/** Cents that must be above zero. */
const PositiveCentsSchema = CentsSchema.refine((n) => n > 0, 'Must be more than 0 cents.')
/** Cents that must not be negative. */
const NonNegativeCentsSchema = CentsSchema.refine((n) => n >= 0, 'Must not be negative.')

/**
 * An annual rate in percent as exact decimal text (`"6.5"` is 6.5% a year), 0 to 100 with at most
 * four decimals. A JSON number is taken by its shortest text, so 6.5 works as well as "6.5".
 */
export const RatePercentSchema = z
  .union([z.string(), z.number()], { error: 'Must be a percentage such as "6.5".' })
  .transform((v) => String(v))
  .refine(
    (s) => RATE_PERCENT_PATTERN.test(s) && Number(s) <= 100,
    'Must be a percentage from 0 to 100 with at most 4 decimals, such as "6.5".',
  )

/** YYYY-MM. */
export const YearMonthSchema = z
  .string()
  .regex(/^(19|2[0-9])[0-9]{2}-(0[1-9]|1[0-2])$/, 'Must be a month as YYYY-MM, from 1900-01 to 2999-12.')

/** A whole number of monthly payments, as JSON or query digits. */
const TermMonthsSchema = z
  .union([z.number(), z.string().regex(/^\d{1,4}$/)], { error: 'Must be a whole number of months.' })
  .transform(Number)
  .refine((n) => Number.isInteger(n) && n >= 1 && n <= MAX_PAYMENTS, `Must be 1 to ${MAX_PAYMENTS} months.`)

/**
 * PUT H/accounts/{accountId}/loan-terms: the terms from `effectiveDate` on. The first terms need
 * the principal, the rate and a payment or a term; a later change carries over what it omits.
 */
export const SetLoanTermsArgsSchema = z.strictObject({
  id: RefIdSchema,
  effectiveDate: DateSchema,
  principalCents: PositiveCentsSchema.optional(),
  annualRatePercent: RatePercentSchema.optional(),
  paymentCents: PositiveCentsSchema.optional(),
  termMonths: TermMonthsSchema.optional(),
  escrowCents: NonNegativeCentsSchema.optional(),
  firstPaymentDate: DateSchema.optional(),
})
export type SetLoanTermsArgs = z.output<typeof SetLoanTermsArgsSchema>

/** DELETE H/accounts/{accountId}/loan-terms/{effectiveDate}. */
export const DeleteLoanTermsArgsSchema = z.strictObject({ id: RefIdSchema, effectiveDate: DateSchema })
export type DeleteLoanTermsArgs = z.output<typeof DeleteLoanTermsArgsSchema>

/** GET H/accounts/{accountId}/loan-terms-history. */
export const LoanAccountArgsSchema = z.strictObject({ id: RefIdSchema })
export type LoanAccountArgs = z.output<typeof LoanAccountArgsSchema>

/** GET H/accounts/{accountId}/loan-projection. */
export const LoanProjectionArgsSchema = z.strictObject({
  id: RefIdSchema,
  extraMonthlyCents: NonNegativeCentsSchema.optional(),
})
export type LoanProjectionArgs = z.output<typeof LoanProjectionArgsSchema>

/** GET H/accounts/{accountId}/loan-simulation. */
export const LoanSimulationArgsSchema = z.strictObject({
  id: RefIdSchema,
  targetPayoffYearMonth: YearMonthSchema.optional(),
  oneTimeExtraCents: NonNegativeCentsSchema.optional(),
  extraMonthlyCents: NonNegativeCentsSchema.optional(),
  paymentCents: PositiveCentsSchema.optional(),
})
export type LoanSimulationArgs = z.output<typeof LoanSimulationArgsSchema>
