import { addDays, daysBetween } from '../ledger/model.ts'
import { type Cadence, DATE_TOLERANCE_DAYS, gridPoint, PERIOD_DAYS } from './cadence.ts'

/** One row of history, as detection reads it. */
export interface HistoryRow {
  id: string
  accountId: string
  date: string
  amountCents: number
  categoryId: string | null
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

/** The rows (sorted by date) within `tolerance` days of `day`, found by binary search. */
function around(rows: readonly HistoryRow[], day: string, tolerance: number): HistoryRow[] {
  const from = addDays(day, -tolerance)
  const to = addDays(day, tolerance)
  let lo = 0
  let hi = rows.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (rows[mid]!.date < from) lo = mid + 1
    else hi = mid
  }
  const out: HistoryRow[] = []
  for (let i = lo; i < rows.length && rows[i]!.date <= to; i++) out.push(rows[i]!)
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

/**
 * Walks back from `start` along the cadence's grid (moved by `shift` days): each period takes the
 * row nearest its grid point (within `tolerance` days) whose amount agrees with the step's amount.
 * One price change is allowed, when the two latest occurrences already share the new price.
 */
function chainFrom(
  rows: readonly HistoryRow[],
  start: HistoryRow,
  cadence: Cadence,
  shift: number,
  tolerance: number,
): HistoryRow[] {
  const chain = [start]
  let reference = start.amountCents
  let changeAt: number | null = null
  for (let k = 1; ; k++) {
    const point = gridPoint(cadence, start.date, k)
    if (point === null) break
    const expected = addDays(point, shift)
    const earliest = chain[chain.length - 1]!.date
    const near = around(rows, expected, tolerance).filter(
      (r) => r.date < earliest && Math.sign(r.amountCents) === Math.sign(reference),
    )
    near.sort((a, b) => Math.abs(daysBetween(expected, a.date)) - Math.abs(daysBetween(expected, b.date)))
    let next = near.find((r) => nearAmount(r.amountCents, reference))
    if (!next && changeAt === null && chain.length >= 2) {
      // A price change: earlier occurrences agree with each other, not with the latest two.
      next = near.find((r) => Math.abs(r.amountCents / reference - 1) <= MAX_PRICE_CHANGE)
      if (next) {
        changeAt = chain.length
        reference = next.amountCents
      }
    }
    if (!next) break
    chain.push(next)
  }
  // Before a change, at least two occurrences must share the old price, or the change is noise.
  if (changeAt !== null && chain.length - changeAt < 2) chain.length = changeAt
  return chain.reverse()
}

/**
 * The chain from `start`: the latest date may itself be early or late, so the grid is tried at
 * each shift within the tolerance and the one that holds the most occurrences wins (the smallest
 * shift on a tie); every date then sits within ±2 days of the series' own day.
 */
function seriesFrom(
  rows: readonly HistoryRow[],
  start: HistoryRow,
  cadence: Cadence,
): { chain: HistoryRow[]; shift: number } {
  if (cadence === 'nth_weekday') return { chain: chainFrom(rows, start, cadence, 0, 0), shift: 0 }
  let best = { chain: [start], shift: 0 }
  for (const shift of [0, -1, 1, -2, 2]) {
    const chain = chainFrom(rows, start, cadence, shift, DATE_TOLERANCE_DAYS)
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
 * occurrences, whose next occurrence is not long overdue.
 */
export function detectSeries(group: readonly HistoryRow[], today: string): Series | null {
  const rows = [...group].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.id < b.id ? -1 : 1))
  let best: { chain: HistoryRow[]; shift: number; cadence: Cadence } | null = null
  for (const start of rows.slice(-3).reverse()) {
    for (const cadence of CADENCES) {
      const { chain, shift } = seriesFrom(rows, start, cadence)
      if (chain.length < minimumOccurrences(cadence)) continue
      if (best && chain.length <= best.chain.length) continue
      if (isolated(rows, chain)) best = { chain, shift, cadence }
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
