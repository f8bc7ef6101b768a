import { z } from 'zod'

/** A budget month, YYYY-MM, from 1900-01 to 2999-12 (the days the ledger accepts). */
export const MonthSchema = z
  .string()
  .regex(/^(19|2[0-9])[0-9]{2}-(0[1-9]|1[0-2])$/, 'Must be a month as YYYY-MM, from 1900-01 to 2999-12.')

/** The month after `month`. */
export function nextMonth(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number]
  return m === 12 ? `${pad(y + 1, 4)}-01` : `${pad(y, 4)}-${pad(m + 1, 2)}`
}

/** The month before `month`. */
export function previousMonth(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number]
  return m === 1 ? `${pad(y - 1, 4)}-12` : `${pad(y, 4)}-${pad(m - 1, 2)}`
}

/** The first day after the month, as YYYY-MM-DD: rows dated before it belong to the month or earlier. */
export function dayAfterMonth(month: string): string {
  return `${nextMonth(month)}-01`
}

/** The month a YYYY-MM-DD day falls in. */
export function monthOf(date: string): string {
  return date.slice(0, 7)
}

/** Every month from `from` to `to`, both included; empty when `from` is later. */
export function monthsBetween(from: string, to: string): string[] {
  const months: string[] = []
  for (let m = from; m <= to; m = nextMonth(m)) months.push(m)
  return months
}

/** Months from `from` to `to` (YYYY-MM): 0 for the same month, negative when `to` is earlier. */
export function monthsFrom(from: string, to: string): number {
  return monthIndex(to) - monthIndex(from)
}

/** The month `count` months after `month` (before it when negative). */
export function addMonths(month: string, count: number): string {
  const index = monthIndex(month) + count
  const year = Math.floor(index / 12)
  const m = index - year * 12 + 1
  return `${year < 1000 ? pad(year, 4) : year}-${m < 10 ? '0' : ''}${m}`
}

/** The last day of a month (YYYY-MM), as YYYY-MM-DD. */
export function lastDayOf(month: string): string {
  return `${month}-${pad(daysInMonth(month), 2)}`
}

/** How many days `month` (YYYY-MM) has. */
export function daysInMonth(month: string): number {
  return new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).getUTCDate()
}

/** Months since year 0 of a YYYY-MM (or YYYY-MM-DD) month. */
function monthIndex(month: string): number {
  return Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0')
}
