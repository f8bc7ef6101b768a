/** A category's variable spending in one month, split at the forecast's day of the month. */
export interface MonthSplit {
  /** Spent on days up to and including the cut day (positive is money out). */
  early: number
  /** Spent after the cut day. */
  late: number
}

/** Trailing months the projection averages. */
export const TRAILING_MONTHS = 3

/** How far a seasonal index may move the projection, either way. */
const SEASON_CLAMP: readonly [number, number] = [0.5, 2]

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length
}

/**
 * The variable spending still to come in a month after its cut day: the mean of what the
 * trailing three months spent after the same day, times a seasonal index, what the same month a
 * year ago spent after that day over the mean of the three months before it (clamped to 0.5-2,
 * and 1 without a year of history). `byMonth` holds the months before the forecast month,
 * `trailing` and `lastYear` the months to read (newest first), in cents; the answer is whole cents.
 */
export function projectRest(
  byMonth: ReadonlyMap<string, MonthSplit>,
  trailing: readonly string[],
  lastYear: { month: string; before: readonly string[] } | null,
): number {
  const base = mean(trailing.map((m) => byMonth.get(m)?.late ?? 0))
  if (base <= 0) return 0
  let index = 1
  if (lastYear?.before.every((m) => byMonth.has(m)) && byMonth.has(lastYear.month)) {
    const reference = mean(lastYear.before.map((m) => byMonth.get(m)!.late))
    const seasonal = byMonth.get(lastYear.month)!.late
    if (reference > 0) index = Math.min(SEASON_CLAMP[1], Math.max(SEASON_CLAMP[0], seasonal / reference))
  }
  return Math.round(base * index)
}
