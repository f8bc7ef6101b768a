import * as rruleModule from 'rrule'
import type { Frequency } from './tables.ts'

// rrule ships CommonJS for Node (named exports only under `default`) and ESM for bundlers.
const rrule = ((rruleModule as unknown as { default?: typeof rruleModule }).default ??
  rruleModule) as typeof rruleModule
const { RRule } = rrule

/** When a recurrence occurs, as calendar days in the household's time zone. */
export interface Schedule {
  frequency: Frequency
  interval: number
  dayOfMonth: number | null
  /** 0 is Monday, 6 Sunday. */
  weekday: number | null
  /** 1 to 5, or -1 for the last. */
  weekOfMonth: number | null
  startDate: string
  endDate: string | null
  count: number | null
}

const WEEKDAYS = [RRule.MO, RRule.TU, RRule.WE, RRule.TH, RRule.FR, RRule.SA, RRule.SU]

/** A calendar day as the UTC midnight rrule works in (floating time, so no DST shift drops a day). */
function utc(day: string): Date {
  return new Date(`${day}T00:00:00Z`)
}

function dayOf(d: Date): string {
  return d.toISOString().slice(0, 10)
}

/** The day of the month to use, falling back to the month's last day when the month is shorter. */
function monthDays(day: number): { bymonthday: number[]; bysetpos?: number[] } {
  return day <= 28 ? { bymonthday: [day] } : { bymonthday: [day, -1], bysetpos: [1] }
}

/** Fills what a schedule leaves out from its start date: weekday, day of month, week of month. */
export function completeSchedule(s: Schedule): Schedule {
  const start = utc(s.startDate)
  const weekday = (start.getUTCDay() + 6) % 7
  const day = start.getUTCDate()
  switch (s.frequency) {
    case 'weekly':
    case 'biweekly':
      return { ...s, weekday: s.weekday ?? weekday }
    case 'monthly':
    case 'yearly':
      return { ...s, dayOfMonth: s.dayOfMonth ?? day }
    case 'monthly_nth_weekday':
      return {
        ...s,
        weekday: s.weekday ?? weekday,
        weekOfMonth: s.weekOfMonth ?? Math.min(Math.ceil(day / 7), 5),
      }
    default:
      return s
  }
}

/** The rrule of a complete schedule. */
function ruleOf(s: Schedule): InstanceType<typeof RRule> {
  const base = {
    dtstart: utc(s.startDate),
    interval: s.interval,
    ...(s.count !== null && { count: s.count }),
    ...(s.endDate !== null && { until: utc(s.endDate) }),
  }
  switch (s.frequency) {
    case 'daily':
      return new RRule({ ...base, freq: RRule.DAILY })
    case 'weekly':
      return new RRule({ ...base, freq: RRule.WEEKLY, byweekday: [WEEKDAYS[s.weekday!]!] })
    case 'biweekly':
      return new RRule({
        ...base,
        freq: RRule.WEEKLY,
        interval: 2 * s.interval,
        byweekday: [WEEKDAYS[s.weekday!]!],
      })
    case 'monthly':
      return new RRule({ ...base, freq: RRule.MONTHLY, ...monthDays(s.dayOfMonth!) })
    case 'monthly_last_day':
      return new RRule({ ...base, freq: RRule.MONTHLY, bymonthday: [-1] })
    case 'monthly_nth_weekday':
      return new RRule({
        ...base,
        freq: RRule.MONTHLY,
        byweekday: [WEEKDAYS[s.weekday!]!.nth(s.weekOfMonth!)],
      })
    case 'yearly':
      return new RRule({
        ...base,
        freq: RRule.YEARLY,
        bymonth: [utc(s.startDate).getUTCMonth() + 1],
        ...monthDays(s.dayOfMonth!),
      })
  }
}

/** Most occurrences one call lists, so a daily schedule over centuries cannot run away. */
const MAX_OCCURRENCES = 5000

/** The schedule's occurrences from `from` to `to`, both included, in order. */
export function occurrencesBetween(s: Schedule, from: string, to: string): string[] {
  if (to < from) return []
  const out: string[] = []
  ruleOf(completeSchedule(s)).between(utc(from), utc(to), true, (d) => {
    out.push(dayOf(d))
    return out.length < MAX_OCCURRENCES
  })
  return out
}

/** The schedule's first occurrence on or after `day`, or null when it has ended. */
export function occurrenceOnOrAfter(s: Schedule, day: string): string | null {
  const next = ruleOf(completeSchedule(s)).after(utc(day), true)
  return next ? dayOf(next) : null
}

/** The schedule's last occurrence on or before `day`, or null when none is. */
export function occurrenceOnOrBefore(s: Schedule, day: string): string | null {
  const prev = ruleOf(completeSchedule(s)).before(utc(day), true)
  return prev ? dayOf(prev) : null
}
