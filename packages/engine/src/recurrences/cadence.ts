import { addDays } from '../ledger/model.ts'

/** A cadence detection looks for, and the frequency an accepted suggestion gets. */
export type Cadence = 'weekly' | 'biweekly' | 'monthly' | 'month_end' | 'nth_weekday' | 'yearly'

/** Most days a detected date may sit from where its cadence puts it. */
export const DATE_TOLERANCE_DAYS = 2

/** Days in `month` (1-12) of `year`. */
function monthLength(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate()
}

function parts(day: string): [number, number, number] {
  return day.split('-').map(Number) as [number, number, number]
}

function format(y: number, m: number, d: number): string {
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`
}

/** `months` months from `day`'s month, on `dayOfMonth` or the month's last day when shorter. */
export function shiftMonths(day: string, months: number, dayOfMonth: number): string {
  const [y, m] = parts(day)
  const index = y * 12 + (m - 1) + months
  const year = Math.floor(index / 12)
  const month = (index % 12) + 1
  return format(year, month, Math.min(dayOfMonth, monthLength(year, month)))
}

/** 0 Monday to 6 Sunday. */
export function weekdayOf(day: string): number {
  return (new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7
}

/** Which such weekday of its month a day is: 1 to 5, or -1 when it is the month's last one (and the 5th). */
export function weekOfMonth(day: string): number {
  const [y, m, d] = parts(day)
  return d + 7 > monthLength(y, m) ? -1 : Math.ceil(d / 7)
}

/** The `nth` (1-5, or -1 for last) `weekday` of the month `months` from `day`'s month, or null. */
function nthWeekday(day: string, months: number, weekday: number, nth: number): string | null {
  const first = shiftMonths(day, months, 1)
  const [y, m] = parts(first)
  const offset = (weekday - weekdayOf(first) + 7) % 7
  const length = monthLength(y, m)
  let d = 1 + offset + (nth === -1 ? 0 : (nth - 1) * 7)
  if (nth === -1) while (d + 7 <= length) d += 7
  return d > length ? null : format(y, m, d)
}

/**
 * Where the cadence puts the occurrence `k` periods before `anchor` (the series' latest
 * occurrence, whose day of month, weekday and week of month it keeps), or null.
 */
export function gridPoint(cadence: Cadence, anchor: string, k: number): string | null {
  switch (cadence) {
    case 'weekly':
      return addDays(anchor, -7 * k)
    case 'biweekly':
      return addDays(anchor, -14 * k)
    case 'monthly':
      return shiftMonths(anchor, -k, parts(anchor)[2])
    case 'month_end':
      return shiftMonths(anchor, -k, 31)
    case 'nth_weekday':
      return nthWeekday(anchor, -k, weekdayOf(anchor), weekOfMonth(anchor))
    case 'yearly': {
      const [y, m, d] = parts(anchor)
      return format(y - k, m, Math.min(d, monthLength(y - k, m)))
    }
  }
}

/** Roughly how many days one period of a cadence is. */
export const PERIOD_DAYS: Record<Cadence, number> = {
  weekly: 7,
  biweekly: 14,
  monthly: 31,
  month_end: 31,
  nth_weekday: 31,
  yearly: 366,
}
