import type { ColumnType, Selectable } from 'kysely'

type Timestamp = ColumnType<Date, Date | string, Date | string>
type Day = ColumnType<string, string, string>
type NullableDay = ColumnType<string | null, string | null | undefined, string | null>

/** How often a recurrence occurs; `interval` multiplies the unit ("every 3 months"). */
export type Frequency =
  | 'daily'
  | 'weekly'
  | 'biweekly'
  | 'monthly'
  | 'monthly_last_day'
  | 'monthly_nth_weekday'
  | 'yearly'

export type RecurrenceStatus = 'active' | 'paused'
export type RecurrenceOrigin = 'manual' | 'detected'

/**
 * A schedule that books one transaction on each occurrence. `run_from` is the first day the next
 * booking may fall on (the day after the last booked occurrence, or the resume day); the next run
 * is the schedule's first occurrence on or after it, kept in `next_run_date` for due-date reads.
 */
export interface RecurrencesTable {
  household_id: string
  id: string
  name: string
  account_id: string
  amount_cents: number
  currency: string
  frequency: Frequency
  interval: number
  day_of_month: number | null
  /** 0 is Monday, 6 Sunday (rrule's numbering). */
  weekday: number | null
  /** 1 to 5, or -1 for the last such weekday of the month. */
  week_of_month: number | null
  start_date: Day
  end_date: NullableDay
  occurrence_count: number | null
  payee_id: string | null
  category_id: string | null
  memo: string | null
  status: RecurrenceStatus
  origin: RecurrenceOrigin
  run_from: Day
  next_run_date: NullableDay
  last_run_date: NullableDay
  created_at: Timestamp
  updated_at: Timestamp
  deleted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
}

/** A suggestion the household hid; `id` is the suggestion's key, so it stays hidden when recomputed. */
export interface RecurrenceDismissalsTable {
  household_id: string
  id: string
  created_at: Timestamp
}

/** A price change `recurrence.priceChanged` already announced, by suggestion key. */
export interface RecurrenceAnnouncementsTable {
  household_id: string
  id: string
  created_at: Timestamp
}

/** The recurrences domain's tables. */
export type RecurrenceTables = {
  recurrences: RecurrencesTable
  recurrence_dismissals: RecurrenceDismissalsTable
  recurrence_announcements: RecurrenceAnnouncementsTable
}

export type RecurrenceRow = Selectable<RecurrencesTable>
