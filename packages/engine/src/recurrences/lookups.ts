import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../database.ts'
import { type FieldError, invalid, notFound } from '../errors.ts'
import { localDate } from '../ledger/model.ts'
import { occurrenceOnOrAfter, type Schedule } from './schedule.ts'
import type { RecurrenceRow } from './tables.ts'

type Db = Kysely<Database> | Transaction<Database>

/** The live recurrence with this id in the household, or 404. */
export async function requireRecurrence(db: Db, householdId: string, id: string): Promise<RecurrenceRow> {
  const row = await db
    .selectFrom('recurrences')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst()
  if (!row) throw notFound('Recurrence', id)
  return row
}

/** The household's local day at `now`: schedules and due dates live in the household's time zone. */
export async function householdToday(db: Db, householdId: string, now: Date): Promise<string> {
  const row = await db
    .selectFrom('households')
    .select('time_zone')
    .where('id', '=', householdId)
    .executeTakeFirst()
  return localDate(now, row?.time_zone ?? 'UTC')
}

const DAY_FREQUENCIES = new Set(['monthly', 'yearly'])
const WEEKDAY_FREQUENCIES = new Set(['weekly', 'biweekly', 'monthly_nth_weekday'])

/** Drops the fields a frequency does not use, so changing the frequency alone stays valid. */
export function fitToFrequency(s: Schedule): Schedule {
  return {
    ...s,
    dayOfMonth: DAY_FREQUENCIES.has(s.frequency) ? s.dayOfMonth : null,
    weekday: WEEKDAY_FREQUENCIES.has(s.frequency) ? s.weekday : null,
    weekOfMonth: s.frequency === 'monthly_nth_weekday' ? s.weekOfMonth : null,
  }
}

/**
 * Refuses a schedule that cannot be one (400 naming the field): a field its frequency does not
 * use, an end before the start, both an end date and a count, or no occurrence at all.
 */
export function requireValidSchedule(s: Schedule): void {
  const errors: FieldError[] = []
  if (s.dayOfMonth !== null && !DAY_FREQUENCIES.has(s.frequency))
    errors.push({
      path: 'dayOfMonth',
      message: `Not used by frequency ${s.frequency}; use monthly or yearly.`,
    })
  if (s.weekday !== null && !WEEKDAY_FREQUENCIES.has(s.frequency))
    errors.push({ path: 'weekday', message: `Not used by frequency ${s.frequency}.` })
  if (s.weekOfMonth !== null && s.frequency !== 'monthly_nth_weekday')
    errors.push({ path: 'weekOfMonth', message: 'Only monthly_nth_weekday uses it.' })
  if (s.endDate !== null && s.endDate < s.startDate)
    errors.push({ path: 'endDate', message: `Must not be before startDate ${s.startDate}.` })
  if (s.endDate !== null && s.count !== null)
    errors.push({ path: 'count', message: 'Send endDate or count, not both.' })
  if (errors.length > 0) throw invalid('INVALID_SCHEDULE', 'The schedule is not valid.', errors)
  if (occurrenceOnOrAfter(s, s.startDate) === null) {
    throw invalid('SCHEDULE_NEVER_OCCURS', 'The schedule has no occurrence between its start and its end.', [
      { path: 'endDate', message: 'No occurrence falls on or before it.' },
    ])
  }
}
