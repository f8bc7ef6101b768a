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

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0')
}
