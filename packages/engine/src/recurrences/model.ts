import type { Schedule } from './schedule.ts'
import { WEEKDAY_NAMES } from './schema.ts'
import type { Frequency, RecurrenceOrigin, RecurrenceRow, RecurrenceStatus } from './tables.ts'

/** A recurrence as the API shows it: money as a decimal integer string. */
export interface Recurrence {
  id: string
  name: string
  accountId: string
  amountCents: string
  currency: string
  frequency: Frequency
  interval: number
  dayOfMonth: number | null
  weekday: (typeof WEEKDAY_NAMES)[number] | null
  weekOfMonth: number | null
  startDate: string
  endDate: string | null
  count: number | null
  payeeId: string | null
  categoryId: string | null
  memo: string | null
  status: RecurrenceStatus
  origin: RecurrenceOrigin
  nextRunDate: string | null
  lastRunDate: string | null
  /** What every booked occurrence's `externalId` starts with; the occurrence date follows it. */
  externalIdPrefix: string
  createdAt: string
  updatedAt: string
}

/** The external id of one occurrence: materialization is idempotent on it. */
export function externalIdOf(recurrenceId: string, date: string): string {
  return `recurrence:${recurrenceId}:${date}`
}

/** A row's schedule. */
export function scheduleOf(row: RecurrenceRow): Schedule {
  return {
    frequency: row.frequency,
    interval: row.interval,
    dayOfMonth: row.day_of_month,
    weekday: row.weekday,
    weekOfMonth: row.week_of_month,
    startDate: row.start_date,
    endDate: row.end_date,
    count: row.occurrence_count,
  }
}

export function toRecurrence(row: RecurrenceRow): Recurrence {
  return {
    id: row.id,
    name: row.name,
    accountId: row.account_id,
    amountCents: String(row.amount_cents),
    currency: row.currency,
    frequency: row.frequency,
    interval: row.interval,
    dayOfMonth: row.day_of_month,
    weekday: row.weekday === null ? null : WEEKDAY_NAMES[row.weekday]!,
    weekOfMonth: row.week_of_month,
    startDate: row.start_date,
    endDate: row.end_date,
    count: row.occurrence_count,
    payeeId: row.payee_id,
    categoryId: row.category_id,
    memo: row.memo,
    status: row.status,
    origin: row.origin,
    nextRunDate: row.next_run_date,
    lastRunDate: row.last_run_date,
    externalIdPrefix: externalIdOf(row.id, ''),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}
