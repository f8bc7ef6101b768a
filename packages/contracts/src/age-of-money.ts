import { z } from 'zod'

const Day = z.string().describe('A calendar day, YYYY-MM-DD.')

export const AgeOfMoneyOutflowSchema = z
  .object({
    transactionId: z.string(),
    date: Day,
    amountCents: z.string().describe('Integer cents as a decimal string; negative, money out.'),
    ageDays: z
      .number()
      .int()
      .min(0)
      .describe('The age of the money it spent, rounded to a whole day; the mean uses the exact ages.'),
  })
  .meta({ id: 'AgeOfMoneyOutflow', description: 'One of the outflows the age of money averages.' })

export const AgeOfMoneySchema = z
  .object({
    days: z
      .number()
      .int()
      .min(0)
      .nullable()
      .describe(
        'The mean age in days of the money the last ten outflows spent, rounded to the nearest day (halves up); null until ten outflows exist.',
      ),
    asOf: Day.describe('The last day whose rows count.'),
    outflows: z
      .array(AgeOfMoneyOutflowSchema)
      .describe('The ten outflows averaged, oldest first; empty while days is null.'),
  })
  .meta({ id: 'AgeOfMoney' })
