import { addMonths } from '../budgets/month.ts'

/** A category's variable spending in one month, split at the forecast's day of the month. */
export interface MonthSplit {
  /** Spent on days up to and including the cut day (positive is money out). */
  early: number
  /** Spent after the cut day (a month's last day counts as after it while the forecast month has days left). */
  late: number
}

/** Complete months the projection averages unless a longer base did better (`baseWindow`). */
export const TRAILING_MONTHS = 3

/** Years back a seasonal index reads the same month (those the household has history for). */
export const SEASON_YEARS = 2

/** Months a season's evidence needs with a ratio both this year and the year before: one year cannot tell a season from noise. */
export const SEASON_MIN_PAIRS = 6

/**
 * The least correlation of twelve months' ratios with the year before's that counts as a season:
 * about what twelve pairs of pure noise exceed one time in twenty (fewer pairs need more).
 */
export const SEASON_EVIDENCE = 0.5

/** How far a seasonal index may move the projection, either way. */
const SEASON_CLAMP: readonly [number, number] = [0.5, 2]

/** Which months a projection reads. */
export interface ProjectionPlan {
  /** The month forecast. */
  month: string
  /**
   * Months from the last complete month to the forecast month: 1 for the current month, 2 for the
   * next. The base averages the three complete months ending `lag` months before `month`.
   */
  lag: number
  /** The earliest month the household has history for; a ratio needing earlier months is not taken. */
  firstMonth: string
  /** Complete months the base averages: `TRAILING_MONTHS` unless `baseWindow` chose another. */
  window?: number
}

/** The bases a category may average: the three last complete months, or the last twelve. */
export const BASE_WINDOWS: readonly number[] = [3, 12]

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length
}

/** The complete months a projection of `plan.month` averages, newest first. */
export function trailingMonths(plan: Pick<ProjectionPlan, 'month' | 'lag' | 'window'>): string[] {
  return Array.from({ length: plan.window ?? TRAILING_MONTHS }, (_, k) =>
    addMonths(plan.month, -plan.lag - k),
  )
}

/**
 * How many complete months a category's base averages, chosen on the household's own history:
 * three where a season shows (`seasonalIndex` then corrects it), else whichever of
 * `BASE_WINDOWS` was nearer each of the last twelve complete months' spending from the months
 * before it (at least six such months; ties and less history keep three). A steady category gets
 * the calmer twelve-month mean; one that moved lately keeps the three months that followed it.
 */
export function baseWindow(total: (m: string) => number, plan: ProjectionPlan): number {
  const three = { ...plan, window: TRAILING_MONTHS }
  if (seasonalIndex(total, three) !== 1) return TRAILING_MONTHS
  const errors = BASE_WINDOWS.map(() => 0)
  let months = 0
  for (let i = 0; i < 12; i++) {
    const t = addMonths(plan.month, -plan.lag - i)
    const bases = BASE_WINDOWS.map((window) => trailingMonths({ month: t, lag: plan.lag, window }))
    if (bases.some((b) => b[b.length - 1]! < plan.firstMonth)) break
    bases.forEach((b, k) => {
      errors[k]! += Math.abs(mean(b.map(total)) - total(t))
    })
    months++
  }
  if (months < 6) return TRAILING_MONTHS
  const best = errors.indexOf(Math.min(...errors))
  return BASE_WINDOWS[best]!
}

/**
 * The variable spending still to come in a month after its cut day: the mean of what the last
 * complete months (three, or twelve by `baseWindow`; those the household has history for) spent
 * after the same day, times
 * `seasonalIndex`, less `carryOver` times how far `spentSoFar` (this month up to the cut) is above
 * what the same months spent up to it (times the index). `byMonth` holds the category's months
 * before the forecast month (in cents); the answer is whole cents, never below 0.
 */
export function projectRest(
  byMonth: ReadonlyMap<string, MonthSplit>,
  plan: ProjectionPlan,
  spentSoFar = 0,
): number {
  const total = (m: string) => {
    const s = byMonth.get(m)
    return s ? s.early + s.late : 0
  }
  const chosen = { ...plan, window: plan.window ?? baseWindow(total, plan) }
  // Months before the household's history are not months without spending.
  const known = trailingMonths(chosen).filter((m) => m >= plan.firstMonth)
  const late = mean(known.map((m) => byMonth.get(m)?.late ?? 0))
  if (late <= 0) return 0
  const index = seasonalIndex(total, chosen)
  const early = mean(known.map((m) => byMonth.get(m)?.early ?? 0))
  const surprise = spentSoFar - index * early
  return Math.max(0, Math.round(index * late - carryOver(byMonth, plan) * surprise))
}

/**
 * How much of an early surprise the rest of a month gives back, 0 to 1: the slope of the late part
 * on the early part across the household's complete months before the forecast month (the last
 * 24), negated. Spending whose month total holds while its days move (a weekly shop on a Monday
 * or a Friday) gives back nearly all; spending that falls independently day by day gives back
 * nothing. 0 with fewer than six months of history.
 */
export function carryOver(byMonth: ReadonlyMap<string, MonthSplit>, plan: ProjectionPlan): number {
  const pairs: [number, number][] = []
  for (let k = 0; k < 24; k++) {
    const m = addMonths(plan.month, -plan.lag - k)
    if (m < plan.firstMonth) break
    const s = byMonth.get(m) ?? { early: 0, late: 0 }
    pairs.push([s.early, s.late])
  }
  if (pairs.length < 6) return 0
  const me = mean(pairs.map((p) => p[0]))
  const ml = mean(pairs.map((p) => p[1]))
  let cov = 0
  let variance = 0
  for (const [e, l] of pairs) {
    cov += (e - me) * (l - ml)
    variance += (e - me) ** 2
  }
  return variance === 0 ? 0 : Math.min(1, Math.max(0, -cov / variance))
}

/**
 * How a month `t` compared with what the trailing mean would have said of it: its spending over
 * the mean of the three complete months `lag` months before it, or null without that history.
 */
function ratioOf(total: (m: string) => number, t: string, plan: ProjectionPlan): number | null {
  const base = trailingMonths({ month: t, lag: plan.lag, window: plan.window })
  if (base[base.length - 1]! < plan.firstMonth) return null
  const reference = mean(base.map(total))
  return reference > 0 ? total(t) / reference : null
}

/** Pearson's correlation of paired values, or 0 when either side does not vary. */
export function correlation(pairs: readonly (readonly [number, number])[]): number {
  const mx = mean(pairs.map((p) => p[0]))
  const my = mean(pairs.map((p) => p[1]))
  let sxy = 0
  let sxx = 0
  let syy = 0
  for (const [x, y] of pairs) {
    sxy += (x - mx) * (y - my)
    sxx += (x - mx) ** 2
    syy += (y - my) ** 2
  }
  return sxx === 0 || syy === 0 ? 0 : sxy / Math.sqrt(sxx * syy)
}

/**
 * The seasonal index of `plan.month`: how the same month one and two years earlier compared with
 * its trailing mean (the mean of the ratios the household has history for), shrunk toward 1 by
 * the evidence that the household's pattern repeats: the correlation of the last twelve complete
 * months' ratios with the same months' a year earlier (at least `SEASON_MIN_PAIRS` such months,
 * so about 21 months of history), counted only where noise would rarely reach it
 * (`SEASON_EVIDENCE` for twelve months, more for fewer). Clamped to 0.5-2; else 1.
 * `total` answers a month's whole spending in cents.
 */
export function seasonalIndex(total: (m: string) => number, plan: ProjectionPlan): number {
  const pairs: [number, number][] = []
  for (let i = 0; i < 12; i++) {
    const t = addMonths(plan.month, -plan.lag - i)
    const now = ratioOf(total, t, plan)
    const before = ratioOf(total, addMonths(t, -12), plan)
    if (now !== null && before !== null) pairs.push([now, before])
  }
  if (pairs.length < SEASON_MIN_PAIRS) return 1
  const r = correlation(pairs)
  // One-sided 5% for n pairs: about 1.645 / sqrt(n - 1), 0.50 for twelve, 0.74 for six.
  const evidence = r >= SEASON_EVIDENCE * Math.sqrt(11 / (pairs.length - 1)) ? r : 0
  const ratios = Array.from({ length: SEASON_YEARS }, (_, y) =>
    ratioOf(total, addMonths(plan.month, -12 * (y + 1)), plan),
  ).filter((r): r is number => r !== null)
  if (ratios.length === 0) return 1
  const raw = mean(ratios)
  return Math.min(SEASON_CLAMP[1], Math.max(SEASON_CLAMP[0], 1 + evidence * (raw - 1)))
}
