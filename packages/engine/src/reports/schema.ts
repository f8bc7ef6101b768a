import { z } from 'zod'
import { MonthSchema } from '../budgets/month.ts'
import type { CostClass } from '../mutator/define.ts'

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

/** A report covering more months than this is an expensive call (docs/api/README.md, Cost limits). */
export const LONG_REPORT_MONTHS = 24

/**
 * The cost of a report over the range its raw arguments name (`YYYY-MM` months or `YYYY-MM-DD`
 * dates; an end left out counts as twelve months): expensive past 24 months, else read-heavy.
 */
export function reportCost(args: Record<string, unknown>): CostClass {
  const from = monthIndex(args.fromMonth ?? args.fromDate)
  const to = monthIndex(args.toMonth ?? args.toDate)
  const months = from === null || to === null ? 12 : to - from + 1
  return months > LONG_REPORT_MONTHS ? 'expensive' : 'read-heavy'
}

function monthIndex(value: unknown): number | null {
  const match = typeof value === 'string' ? /^(\d{4})-(\d{2})/.exec(value) : null
  return match ? Number(match[1]) * 12 + Number(match[2]) - 1 : null
}
