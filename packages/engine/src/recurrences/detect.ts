import { addDays, daysBetween } from '../ledger/model.ts'
import { type Cadence, DATE_TOLERANCE_DAYS, gridPoint, PERIOD_DAYS } from './cadence.ts'

/** One row of history, as detection reads it. */
export interface HistoryRow {
  id: string
  accountId: string
  date: string
  amountCents: number
  categoryId: string | null
  /** The date as days since 1970-01-01, when the reader already has it. */
  day?: number
}

/** A recurring series found in one group of rows. */
export interface Series {
  cadence: Cadence
  /** Oldest first. */
  rows: HistoryRow[]
  /** What the latest occurrences cost. */
  amountCents: number
  /** What it cost before a price change the latest two occurrences share, if there was one. */
  previousAmountCents: number | null
  /** The series' own day for its latest occurrence (the latest date may be up to 2 days off it). */
  day: string
  nextDate: string
}

/** Amounts agree when within 7.5% of each other (of the larger magnitude). */
export const AMOUNT_TOLERANCE = 0.075

export function nearAmount(a: number, b: number): boolean {
  if (Math.sign(a) !== Math.sign(b)) return false
  return Math.abs(a - b) <= AMOUNT_TOLERANCE * Math.max(Math.abs(a), Math.abs(b))
}

/** The largest price change a series may show (50% either way); larger is another charge. */
const MAX_PRICE_CHANGE = 0.5

/** Cadences in the order a tie prefers them: the most specific first. */
const CADENCES: readonly Cadence[] = ['nth_weekday', 'month_end', 'monthly', 'biweekly', 'weekly', 'yearly']

/** Least occurrences a series needs: 3, or 2 for yearly. */
export function minimumOccurrences(cadence: Cadence): number {
  return cadence === 'yearly' ? 2 : 3
}

/** A day as a whole number of days since 1970-01-01, so detection steps and compares integers. */
function dayNumber(date: string): number {
  return Math.round(Date.parse(`${date}T00:00:00Z`) / 86_400_000)
}

/** A group's rows sorted by date, with each row's day number beside it. */
interface Sorted {
  rows: readonly HistoryRow[]
  days: readonly number[]
}

/** The indexes of the rows within `tolerance` days of `day`, found by binary search. */
function around(g: Sorted, day: number, tolerance: number): number[] {
  let lo = 0
  let hi = g.days.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (g.days[mid]! < day - tolerance) lo = mid + 1
    else hi = mid
  }
  const out: number[] = []
  for (let i = lo; i < g.days.length && g.days[i]! <= day + tolerance; i++) out.push(i)
  return out
}

/**
 * Whether the series stands alone: rows of the group that cost what it does (within 7.5%) but are
 * not part of it number at most a quarter of its occurrences. Random purchases at one shop fall on
 * some cadence's grid by chance; a real recurring charge is nearly the only charge of its amount.
 */
function isolated(rows: readonly HistoryRow[], chain: readonly HistoryRow[]): boolean {
  const ids = new Set(chain.map((r) => r.id))
  const amounts = chain.map((r) => r.amountCents)
  let others = 0
  for (const r of rows) {
    if (!ids.has(r.id) && amounts.some((a) => nearAmount(a, r.amountCents))) others++
  }
  return others * 4 <= chain.length
}

/** Occurrences that make a series regular on their own, whatever else its payee is paid. */
export const CONVINCING_OCCURRENCES = 6

/**
 * Whether the series is the group's pattern and not a coincidence within it: it holds at least
 * half of the group's rows, or it has 6 occurrences or more. A shop visited every week or two at
 * random amounts holds, over two years, a few visits that happen to fall a week, a month or a
 * year apart at nearly the same amount; such a pair or triple is as likely as not among a busy
 * payee's visits, while six in a row on one grid are not (tests: detect.test.ts).
 */
function explains(rows: readonly HistoryRow[], chain: readonly HistoryRow[]): boolean {
  return chain.length >= CONVINCING_OCCURRENCES || chain.length * 2 >= rows.length
}

/** The day numbers of a cadence's grid before a start row, computed once for every shift. */
function gridOf(cadence: Cadence, anchor: string): (k: number) => number | null {
  const points: (number | null)[] = []
  return (k) => {
    while (points.length < k) {
      const point = gridPoint(cadence, anchor, points.length + 1)
      points.push(point === null ? null : dayNumber(point))
    }
    return points[k - 1]!
  }
}

/**
 * Walks back from `start` along the cadence's grid (moved by `shift` days): each period takes the
 * row nearest its grid point (within `tolerance` days) whose amount agrees with the step's amount.
 * One price change is allowed, when the two latest occurrences already share the new price.
 */
function chainFrom(
  g: Sorted,
  start: number,
  grid: (k: number) => number | null,
  shift: number,
  tolerance: number,
): HistoryRow[] {
  const chain = [start]
  let reference = g.rows[start]!.amountCents
  let changeAt: number | null = null
  for (let k = 1; ; k++) {
    const point = grid(k)
    if (point === null) break
    const expected = point + shift
    const earliest = g.days[chain[chain.length - 1]!]!
    const near = around(g, expected, tolerance).filter(
      (i) => g.days[i]! < earliest && Math.sign(g.rows[i]!.amountCents) === Math.sign(reference),
    )
    near.sort((a, b) => Math.abs(g.days[a]! - expected) - Math.abs(g.days[b]! - expected))
    let next = near.find((i) => nearAmount(g.rows[i]!.amountCents, reference))
    if (next === undefined && changeAt === null && chain.length >= 2) {
      // A price change: earlier occurrences agree with each other, not with the latest two.
      next = near.find((i) => Math.abs(g.rows[i]!.amountCents / reference - 1) <= MAX_PRICE_CHANGE)
      if (next !== undefined) {
        changeAt = chain.length
        reference = g.rows[next]!.amountCents
      }
    }
    if (next === undefined) break
    chain.push(next)
  }
  // Before a change, at least two occurrences must share the old price, or the change is noise.
  if (changeAt !== null && chain.length - changeAt < 2) chain.length = changeAt
  return chain.reverse().map((i) => g.rows[i]!)
}

/**
 * The chain from `start`: the latest date may itself be early or late, so the grid is tried at
 * each shift within the tolerance and the one that holds the most occurrences wins (the smallest
 * shift on a tie); every date then sits within ±2 days of the series' own day.
 */
function seriesFrom(g: Sorted, start: number, cadence: Cadence): { chain: HistoryRow[]; shift: number } {
  const grid = gridOf(cadence, g.rows[start]!.date)
  // No shift can take a first step without a row costing the same within its reach: stop early.
  const first = grid(1)
  const amount = g.rows[start]!.amountCents
  const reach = cadence === 'nth_weekday' ? 0 : 2 * DATE_TOLERANCE_DAYS
  if (first === null || !around(g, first, reach).some((i) => nearAmount(g.rows[i]!.amountCents, amount))) {
    return { chain: [g.rows[start]!], shift: 0 }
  }
  if (cadence === 'nth_weekday') return { chain: chainFrom(g, start, grid, 0, 0), shift: 0 }
  let best = { chain: [g.rows[start]!], shift: 0 }
  for (const shift of [0, -1, 1, -2, 2]) {
    const chain = chainFrom(g, start, grid, shift, DATE_TOLERANCE_DAYS)
    if (chain.length > best.chain.length) best = { chain, shift }
  }
  return best
}

/** The series' first grid date after its latest occurrence that is not before `today`. */
function nextOnOrAfter(cadence: Cadence, latest: string, shift: number, today: string): string {
  for (let k = -1; ; k--) {
    const next = addDays(gridPoint(cadence, latest, k)!, shift)
    if (next >= today || k < -400) return next
  }
}

/** The median of amounts, rounded toward the latest one's side. */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor((sorted.length - 1) / 2)]!
}

/**
 * The recurring series in one group of rows (one payee or description on one account), as of
 * `today`, or null: the longest chain from one of the latest rows over every cadence, with enough
 * occurrences, standing alone at its amount and explaining the group (`explains`), whose next
 * occurrence is not long overdue.
 */
export function detectSeries(group: readonly HistoryRow[], today: string): Series | null {
  const dated = group.map((r) => ({ r, day: r.day ?? dayNumber(r.date) }))
  dated.sort((a, b) => a.day - b.day || (a.r.id < b.r.id ? -1 : 1))
  const rows = dated.map((d) => d.r)
  const g: Sorted = { rows, days: dated.map((d) => d.day) }
  let best: { chain: HistoryRow[]; shift: number; cadence: Cadence } | null = null
  for (let start = rows.length - 1; start >= Math.max(0, rows.length - 3); start--) {
    // A chain's second occurrence costs what its latest does: without one, no cadence can hold.
    const amount = rows[start]!.amountCents
    if (!rows.some((r, i) => i < start && nearAmount(r.amountCents, amount))) continue
    for (const cadence of CADENCES) {
      const { chain, shift } = seriesFrom(g, start, cadence)
      if (chain.length < minimumOccurrences(cadence)) continue
      if (best && chain.length <= best.chain.length) continue
      if (isolated(rows, chain) && explains(rows, chain)) best = { chain, shift, cadence }
    }
  }
  if (!best) return null
  const { chain, shift, cadence } = best
  const latest = chain[chain.length - 1]!
  if (daysBetween(latest.date, today) > PERIOD_DAYS[cadence] + 7) return null
  const newest = chain.filter((r) => nearAmount(r.amountCents, latest.amountCents))
  const older = chain.filter((r) => !nearAmount(r.amountCents, latest.amountCents))
  const cutoff = chain.length - newest.length
  const amountCents = median(chain.slice(cutoff).map((r) => r.amountCents))
  return {
    cadence,
    rows: chain,
    amountCents,
    previousAmountCents: older.length > 0 ? median(older.map((r) => r.amountCents)) : null,
    day: addDays(latest.date, shift),
    nextDate: nextOnOrAfter(cadence, latest.date, shift, today),
  }
}
