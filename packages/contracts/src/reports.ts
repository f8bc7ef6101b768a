import { z } from 'zod'

const Month = z.string().describe('A month, YYYY-MM.')
const Day = z.string().describe('A calendar day, YYYY-MM-DD.')
const Cents = (what: string) => z.string().describe(`${what}, integer cents as a decimal string.`)
const Unconverted = z
  .array(z.string())
  .describe('Currencies with no rate to the base currency: left out of the figures, never guessed.')

export const NetWorthReportSchema = z
  .object({
    baseCurrency: z.string().describe('Every figure is in this currency.'),
    fromMonth: Month,
    toMonth: Month,
    months: z
      .array(
        z.object({
          month: Month,
          date: Day.describe("The day the balances are taken at: the month's last day."),
          assetsCents: Cents('The balances of accounts above zero'),
          liabilitiesCents: Cents('The balances of accounts below zero, as a positive magnitude'),
          netWorthCents: Cents('Assets less liabilities'),
        }),
      )
      .describe('One entry per month, oldest first.'),
    unconvertedCurrencies: Unconverted,
  })
  .meta({ id: 'NetWorthReport' })

const CashFlowTotals = {
  incomeCents: Cents('Money in'),
  spendingCents: Cents('Money out, as a positive magnitude'),
  netCents: Cents('Income less spending'),
}

export const CashFlowReportSchema = z
  .object({
    baseCurrency: z.string().describe('Every figure is in this currency.'),
    fromMonth: Month,
    toMonth: Month,
    months: z
      .array(z.object({ month: Month, ...CashFlowTotals }))
      .describe('One entry per month, oldest first; a month without rows is zero.'),
    totals: z.object(CashFlowTotals).describe('The sums of the months.'),
    unconvertedCurrencies: Unconverted,
  })
  .meta({ id: 'CashFlowReport' })

export const SpendingReportSchema = z
  .object({
    baseCurrency: z.string().describe('Every figure is in this currency.'),
    fromDate: Day,
    toDate: Day,
    spentCents: Cents('Money out over the range, gross (refunds not taken off), as a positive magnitude'),
    incomeCents: Cents('Money in over the range, gross (income, refunds and any other inflow)'),
    netSpentCents: Cents(
      'Money out less refunds on rows outside income categories: the sum of the groups netSpentCents for groupBy category or payee',
    ),
    earnedCents: Cents('Money in less money out on rows in income categories'),
    count: z.number().int().describe('Rows (split parts) counted.'),
    groups: z
      .array(
        z.object({
          id: z.string().nullable().describe('The category, payee or tag; null: rows without one.'),
          name: z.string(),
          spentCents: Cents('Money out less refunds; negative for a group that took more in (income)'),
          netSpentCents: Cents('The same, on rows outside income categories'),
          count: z.number().int(),
        }),
      )
      .describe('Largest spending first; empty for groupBy=none.'),
    unconvertedCurrencies: Unconverted,
  })
  .meta({ id: 'SpendingReport' })

export const AgeOfMoneyReportSchema = z
  .object({
    fromMonth: Month,
    toMonth: Month,
    months: z
      .array(
        z.object({
          month: Month,
          asOf: Day.describe("The month's last day, or your local today in the current month."),
          days: z
            .number()
            .int()
            .min(0)
            .nullable()
            .describe(
              'The age of money on asOf, as GET /budgets/age-of-money answers; null until ten outflows exist.',
            ),
        }),
      )
      .describe('One entry per month, oldest first.'),
  })
  .meta({ id: 'AgeOfMoneyReport' })
