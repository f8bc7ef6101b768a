import { z } from 'zod'

const Instant = z.string().describe('ISO 8601 instant in UTC.')
const Day = z.string().describe('A calendar day, YYYY-MM-DD.')
const Month = z.string().describe('A month, YYYY-MM.')
const Cents = z.string().describe('Integer cents as a decimal string.')

export const LoanTermsSchema = z
  .object({
    id: z.string(),
    accountId: z.string(),
    effectiveDate: Day.describe('The terms hold from this day until the next change.'),
    principalCents: Cents.describe(
      'What is owed just before the first payment’s month of interest; positive.',
    ),
    annualRatePercent: z
      .string()
      .describe('The annual rate in percent as exact decimal text (at most 4 decimals), such as "6.5".'),
    paymentCents: Cents.describe('The monthly principal and interest; escrow comes on top.'),
    escrowCents: Cents.describe('Escrow collected with each payment (taxes, insurance).'),
    firstPaymentDate: Day.describe(
      'The first payment under these terms; later ones fall on the same day of month.',
    ),
    termMonths: z
      .number()
      .int()
      .nullable()
      .describe(
        'Payments until maturity; the last one clears the balance. Null for an open-ended payment plan.',
      ),
    createdAt: Instant,
    updatedAt: Instant,
  })
  .meta({ id: 'LoanTerms' })

export const LoanTermsHistorySchema = z
  .object({
    accountId: z.string(),
    items: z.array(LoanTermsSchema).describe('Newest effective date first.'),
  })
  .meta({ id: 'LoanTermsHistory' })

export const AmortizationRowSchema = z
  .object({
    number: z.number().int().min(1).describe('1 for the first payment under the terms.'),
    date: Day,
    paymentCents: Cents.describe('Everything paid: interest, principal (extra included) and escrow.'),
    principalCents: Cents,
    interestCents: Cents.describe(
      'The balance before the payment × rate / 12, rounded to the cent (half up).',
    ),
    escrowCents: Cents,
    extraCents: Cents.describe('The part of principalCents paid beyond the scheduled payment.'),
    balanceCents: Cents.describe('What is owed after the payment; 0 after the last.'),
  })
  .meta({ id: 'AmortizationRow' })

export const LoanMonthSplitSchema = z
  .object({
    yearMonth: Month.describe('Your current month.'),
    scheduledPaymentCents: Cents.nullable().describe('The payment the table has this month, if any.'),
    paidCents: Cents.describe('Money paid into the loan account this month (its inflows).'),
    interestCents: Cents.describe('Up to the month’s scheduled interest.'),
    escrowCents: Cents.describe('Then up to the scheduled escrow.'),
    principalCents: Cents.describe('The rest.'),
  })
  .meta({
    id: 'LoanMonthSplit',
    description: "This month's actual ledger payment, split as the lender applies it.",
  })

const planFields = {
  accountId: z.string(),
  asOf: Day.describe('Your local day the projection is made on.'),
  terms: LoanTermsSchema.describe('The terms in force (or, before the loan starts, its first terms).'),
  paymentCents: Cents.describe('The monthly principal and interest from this month on.'),
  escrowCents: Cents,
  extraMonthlyCents: Cents,
  payoffYearMonth: Month,
  payoffDate: Day,
  paymentCount: z.number().int().min(0).describe('Payments in the table, from the first under the terms.'),
  totalInterestCents: Cents.describe('Interest over the whole table.'),
  totalPaidCents: Cents.describe('Everything paid over the whole table, escrow included.'),
  remainingInterestCents: Cents.describe('Interest from this month’s payment on.'),
  schedule: z.array(AmortizationRowSchema).describe('Every payment under the terms, oldest first.'),
  thisMonth: LoanMonthSplitSchema,
}

export const LoanProjectionSchema = z.object(planFields).meta({ id: 'LoanProjection' })

export const LoanSimulationSchema = z
  .object({
    ...planFields,
    oneTimeExtraCents: Cents,
    targetPayoffYearMonth: Month.nullable(),
    comparison: z
      .object({
        basePaymentCents: Cents,
        basePayoffYearMonth: Month,
        baseTotalInterestCents: Cents,
        monthsSaved: z.number().int().describe('Negative when the what-if takes longer.'),
        interestSavedCents: Cents.describe('Negative when the what-if costs more.'),
      })
      .describe('The what-if against the current plan (the projection without extras).'),
  })
  .meta({ id: 'LoanSimulation' })
