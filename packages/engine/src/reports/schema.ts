import { z } from 'zod'
import { MonthSchema } from '../budgets/month.ts'

/** The most months one report covers: twenty years. */
export const REPORT_MAX_MONTHS = 240

/** A run of months; omitted ends default to the twelve months ending with the caller's own. */
export const MonthRangeArgsSchema = z.strictObject({
  /** The first month, YYYY-MM; omitted: eleven months before `toMonth`. */
  fromMonth: MonthSchema.optional(),
  /** The last month, YYYY-MM; omitted: eleven months after `fromMonth`, or the caller's month. */
  toMonth: MonthSchema.optional(),
})
export type MonthRangeArgs = z.output<typeof MonthRangeArgsSchema>
