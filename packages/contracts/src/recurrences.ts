import { z } from 'zod'
import { TransactionSchema } from './ledger.ts'

const Instant = z.string().describe('ISO 8601 instant in UTC.')
const Day = z.string().describe('A calendar day, YYYY-MM-DD.')
const Cents = z.string().describe('Integer cents as a decimal string; negative means money out.')
const Frequency = z
  .enum(['daily', 'weekly', 'biweekly', 'monthly', 'monthly_last_day', 'monthly_nth_weekday', 'yearly'])
  .describe('With interval: every N of the unit (biweekly is every 2N weeks).')
const Weekday = z.enum(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'])

export const RecurrenceSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    accountId: z.string(),
    amountCents: Cents,
    currency: z.string().describe("The account's currency."),
    frequency: Frequency,
    interval: z.number().int(),
    dayOfMonth: z
      .number()
      .int()
      .nullable()
      .describe('Monthly and yearly: 1-31; a shorter month uses its last day.'),
    weekday: Weekday.nullable(),
    weekOfMonth: z.number().int().nullable().describe('monthly_nth_weekday: 1-5, or -1 for the last.'),
    startDate: Day,
    endDate: Day.nullable(),
    count: z
      .number()
      .int()
      .nullable()
      .describe('How many occurrences the schedule has, counted from startDate.'),
    payeeId: z.string().nullable(),
    categoryId: z.string().nullable(),
    memo: z.string().nullable(),
    status: z.enum(['active', 'paused']),
    origin: z.enum(['manual', 'detected']),
    nextRunDate: Day.nullable().describe('The next occurrence to book; null once the schedule has ended.'),
    lastRunDate: Day.nullable(),
    externalIdPrefix: z
      .string()
      .describe('Each booked row has externalId = this prefix + the occurrence date.'),
    createdAt: Instant,
    updatedAt: Instant,
  })
  .meta({ id: 'Recurrence' })

export const RecurrenceListSchema = z
  .object({ items: z.array(RecurrenceSchema) })
  .meta({ id: 'RecurrenceList', description: 'By nextRunDate (ended last), then name, then id.' })

export const RecurrenceBookingSchema = z
  .object({
    date: Day,
    created: z
      .boolean()
      .describe('False when the occurrence was already booked: the existing row is returned.'),
    transaction: TransactionSchema,
  })
  .meta({ id: 'RecurrenceBooking' })

export const UpcomingItemSchema = z
  .object({
    kind: z.enum(['occurrence', 'pendingRecurring', 'futureTransaction', 'cardPaymentDue']),
    date: Day,
    accountId: z.string(),
    amountCents: Cents.describe('For cardPaymentDue: what the card owes then (positive).'),
    name: z.string().nullable(),
    recurrenceId: z.string().nullable(),
    transactionId: z.string().nullable(),
    payeeId: z.string().nullable(),
    categoryId: z.string().nullable(),
    projectedBalanceCents: Cents.describe("The account's projected balance once this item has happened."),
  })
  .meta({ id: 'UpcomingItem' })

export const UpcomingSchema = z
  .object({ fromDate: Day, toDate: Day, items: z.array(UpcomingItemSchema) })
  .meta({ id: 'Upcoming', description: 'In date order.' })

export const RecurrenceSuggestionSchema = z
  .object({
    key: z.string().describe('Stable across recomputations; dismissals and accepts use it.'),
    kind: z.enum(['recurring', 'priceChange']),
    dismissed: z.boolean(),
    name: z.string(),
    accountId: z.string(),
    payeeId: z.string().nullable(),
    categoryId: z.string().nullable(),
    amountCents: Cents,
    previousAmountCents: Cents.nullable(),
    frequency: Frequency,
    dayOfMonth: z.number().int().nullable(),
    weekday: Weekday.nullable(),
    weekOfMonth: z.number().int().nullable(),
    occurrences: z.number().int(),
    lastDate: Day,
    nextDate: Day,
    transactionIds: z.array(z.string()),
    recurrenceId: z.string().nullable(),
  })
  .meta({ id: 'RecurrenceSuggestion' })

export const RecurrenceSuggestionListSchema = z
  .object({ items: z.array(RecurrenceSuggestionSchema) })
  .meta({ id: 'RecurrenceSuggestionList', description: 'Price changes first, then detections, each by key.' })

export const AcceptedSuggestionSchema = z
  .object({ key: z.string(), kind: z.enum(['recurring', 'priceChange']), recurrence: RecurrenceSchema })
  .meta({ id: 'AcceptedSuggestion' })

const ForecastPart = {
  actualCents: z.string().describe('Spent so far (positive is money out).'),
  scheduledCents: z.string().describe('Unbooked recurrence occurrences and rows dated later in the month.'),
  projectedCents: z.string().describe('The variable rest, projected from trailing months.'),
  totalCents: z.string(),
}

export const ForecastSchema = z
  .object({
    month: z.string(),
    asOf: Day.nullable(),
    period: z.enum(['past', 'current', 'future']),
    method: z.string(),
    categories: z.array(z.object({ categoryId: z.string().nullable(), ...ForecastPart })),
    totals: z.object(ForecastPart),
    refinement: z.object({
      requested: z.boolean(),
      applied: z.boolean(),
      reason: z.string().nullable(),
    }),
  })
  .meta({ id: 'Forecast' })
