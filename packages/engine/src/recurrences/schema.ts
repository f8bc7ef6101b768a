import { z } from 'zod'
import { QueryBooleanSchema, queryIntSchema, RefIdSchema } from '../ledger/schema.ts'
import { MemoSchema } from '../ledger/transactions/schema.ts'
import { CentsSchema, CurrencySchema, DateSchema, NameSchema, UlidSchema } from '../shared/schema.ts'

export const FREQUENCIES = [
  'daily',
  'weekly',
  'biweekly',
  'monthly',
  'monthly_last_day',
  'monthly_nth_weekday',
  'yearly',
] as const

export const WEEKDAY_NAMES = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const

export const FrequencySchema = z.enum(FREQUENCIES, {
  error: `Must be one of ${FREQUENCIES.join(', ')}.`,
})
export const WeekdaySchema = z.enum(WEEKDAY_NAMES, { error: `Must be one of ${WEEKDAY_NAMES.join(', ')}.` })

/** The schedule fields a create takes and a PATCH may change. */
const scheduleFields = {
  frequency: FrequencySchema,
  /** Every N units: 2 with monthly is every other month. */
  interval: z.number().int().min(1).max(999).optional(),
  dayOfMonth: z.number().int().min(1, 'Must be 1 to 31.').max(31, 'Must be 1 to 31.').nullish(),
  weekday: WeekdaySchema.nullish(),
  weekOfMonth: z
    .union([z.literal(-1), z.number().int().min(1).max(5)], { error: 'Must be 1 to 5, or -1 for the last.' })
    .nullish(),
  startDate: DateSchema,
  endDate: DateSchema.nullish(),
  count: z.number().int().min(1).max(10_000).nullish(),
}

export const CreateRecurrenceArgsSchema = z.strictObject({
  id: UlidSchema,
  name: NameSchema,
  accountId: RefIdSchema,
  amountCents: CentsSchema.refine((n) => n !== 0, 'Must not be zero.'),
  /** Must be the account's currency; defaults to it. */
  currency: CurrencySchema.optional(),
  payeeId: RefIdSchema.nullish(),
  categoryId: RefIdSchema.nullish(),
  memo: MemoSchema.nullish(),
  ...scheduleFields,
})
export type CreateRecurrenceArgs = z.output<typeof CreateRecurrenceArgsSchema>

export const UpdateRecurrenceArgsSchema = z.strictObject({
  id: RefIdSchema,
  name: NameSchema.optional(),
  accountId: RefIdSchema.optional(),
  amountCents: CentsSchema.refine((n) => n !== 0, 'Must not be zero.').optional(),
  currency: CurrencySchema.optional(),
  payeeId: RefIdSchema.nullish(),
  categoryId: RefIdSchema.nullish(),
  memo: MemoSchema.nullish(),
  frequency: scheduleFields.frequency.optional(),
  interval: scheduleFields.interval,
  dayOfMonth: scheduleFields.dayOfMonth,
  weekday: scheduleFields.weekday,
  weekOfMonth: scheduleFields.weekOfMonth,
  startDate: scheduleFields.startDate.optional(),
  endDate: scheduleFields.endDate,
  count: scheduleFields.count,
})
export type UpdateRecurrenceArgs = z.output<typeof UpdateRecurrenceArgsSchema>

export const RecurrenceIdArgsSchema = z.strictObject({ id: RefIdSchema })

export const MaterializeNowArgsSchema = z.strictObject({
  id: RefIdSchema,
  /** The occurrence to book; default: the current run (the latest occurrence on or before today, else the first). */
  date: DateSchema.optional(),
})
export type MaterializeNowArgs = z.output<typeof MaterializeNowArgsSchema>

export const MaterializeDueArgsSchema = z.strictObject({})

export const UpcomingArgsSchema = z.strictObject({
  /** Days ahead from today, today included: 1 to 366, default 30. */
  days: queryIntSchema(1, 366).optional(),
  accountId: RefIdSchema.optional(),
})
export type UpcomingArgs = z.output<typeof UpcomingArgsSchema>

export const SuggestionsArgsSchema = z.strictObject({
  /** Also list dismissed suggestions (marked `dismissed: true`). */
  includeDismissed: QueryBooleanSchema.optional(),
})

export const SuggestionKeyArgsSchema = z.strictObject({
  key: z.string().min(1).max(300),
  /** The id of the recurrence an accepted detection creates; a route fills it. */
  recurrenceId: UlidSchema.optional(),
})
export type SuggestionKeyArgs = z.output<typeof SuggestionKeyArgsSchema>

export const DismissalArgsSchema = z.strictObject({ key: z.string().min(1).max(300) })
