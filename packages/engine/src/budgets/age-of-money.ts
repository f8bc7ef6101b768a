/** One movement of money in or out of the on-budget cash accounts, in integer cents. */
export interface CashFlow {
  /** YYYY-MM-DD. */
  date: string
  /** Positive: an inflow, a new bucket. Negative: an outflow, drained from the oldest buckets. */
  amountCents: bigint
  /** Carried through to the scored outflows, for the caller to name them. */
  id?: string
}

/** One of the outflows the figure averages, with the exact age of the money it spent. */
export interface ScoredOutflow {
  id?: string
  date: string
  amountCents: bigint
  /** The age in days, as the exact fraction `ageNumerator / ageDenominator`. */
  ageNumerator: bigint
  ageDenominator: bigint
}

/** The age of money: the mean age in days of the last `window` outflows, rounded to a whole day. */
export interface AgeOfMoney {
  days: number
  /** The exact mean, as a fraction of days. */
  numerator: bigint
  denominator: bigint
  outflows: ScoredOutflow[]
}

/** YNAB's window: the last ten cash outflows. */
export const AGE_OF_MONEY_WINDOW = 10

/** Money that came in on one day (days since 1970-01-01) and is not spent yet. */
export interface Bucket {
  day: number
  left: bigint
}

/**
 * YNAB's age of money. Each inflow is a bucket dated on its day; each outflow drains the oldest
 * buckets first (first in, first out), and its age is the mean of `outflow day - bucket day`
 * over the cents it took, weighted by cents. A part no bucket covers (the accounts were below
 * zero) is money spent the day it arrived: age 0. The figure is the plain mean of the ages of
 * the last `window` outflows, rounded to the nearest whole day (halves up), or null while
 * fewer than `window` outflows exist.
 *
 * Flows are taken by date; on one day inflows come before outflows (pay that lands the day of a
 * purchase covers it), and otherwise in the order given.
 */
export function ageOfMoney(flows: readonly CashFlow[], window = AGE_OF_MONEY_WINDOW): AgeOfMoney | null {
  const ordered = orderFlows(flows)
  const outflowCount = ordered.filter((f) => f.amountCents < 0n).length
  if (outflowCount < window) return null
  const scored: ScoredOutflow[] = []
  let seen = 0
  for (const o of scoreOutflows(ordered)) if (++seen > outflowCount - window) scored.push(o)
  return meanAge(scored)
}

/**
 * Where a roll over the flows stands after every flow up to some day: the buckets not yet
 * drained (oldest first) and the last `window` outflows scored, oldest first. The roll goes on
 * from it as if it had taken those flows itself (`ageOfMoneyRoll`'s `start`).
 */
export interface AgeOfMoneyState {
  buckets: Bucket[]
  recent: ScoredOutflow[]
}

/** The roll's figure at a point, and where it stood there. */
export interface AgeOfMoneyPointState {
  figure: AgeOfMoney | null
  state: AgeOfMoneyState
}

/**
 * The age of money at the end of each day of `points` (in order): what `ageOfMoney` gives for the
 * flows dated up to that day, from one pass over the flows. An outflow's age depends only on the
 * flows before it, so each point averages the last `window` outflows scored so far.
 */
export function ageOfMoneySeries(
  flows: readonly CashFlow[],
  points: readonly string[],
  window = AGE_OF_MONEY_WINDOW,
): (AgeOfMoney | null)[] {
  return ageOfMoneyRoll(flows, points, window).map((p) => p.figure)
}

/**
 * `ageOfMoneySeries` with where the roll stood at each point, going on from `start` (the state
 * after every flow dated up to some day before the first of `flows` and of `points`) when given:
 * a reader that kept the state at a month's end reads only the flows after it.
 */
export function ageOfMoneyRoll(
  flows: readonly CashFlow[],
  points: readonly string[],
  window = AGE_OF_MONEY_WINDOW,
  start?: AgeOfMoneyState,
): AgeOfMoneyPointState[] {
  const ordered = orderFlows(flows)
  const out: AgeOfMoneyPointState[] = []
  const last: ScoredOutflow[] = start ? start.recent.slice(-window) : []
  const buckets: Bucket[] = start ? start.buckets.map((b) => ({ ...b })) : []
  const drained = { head: 0 }
  let next = 0
  const settle = (upTo: string | null) => {
    while (next < points.length && (upTo === null || (points[next] as string) < upTo)) {
      const state = { buckets: buckets.slice(drained.head).map((b) => ({ ...b })), recent: last.slice() }
      out.push({ figure: ageOfMoneyFigure(state, window), state })
      next++
    }
  }
  const scoring = scoreOutflows(ordered, buckets, drained, (date) => settle(date))
  for (const o of scoring) {
    last.push(o)
    if (last.length > window) last.shift()
  }
  settle(null)
  return out
}

/** The figure where a roll stands: null while it has scored fewer than `window` outflows. */
export function ageOfMoneyFigure(state: AgeOfMoneyState, window = AGE_OF_MONEY_WINDOW): AgeOfMoney | null {
  return state.recent.length < window ? null : meanAge(state.recent.slice(-window))
}

/** By date; on one day inflows before outflows, and otherwise in the order given. */
function orderFlows(flows: readonly CashFlow[]): CashFlow[] {
  return flows
    .filter((f) => f.amountCents !== 0n)
    .map((f, i) => ({ f, i }))
    .sort(
      (a, b) =>
        (a.f.date < b.f.date ? -1 : a.f.date > b.f.date ? 1 : 0) ||
        Number(a.f.amountCents < 0n) - Number(b.f.amountCents < 0n) ||
        a.i - b.i,
    )
    .map(({ f }) => f)
}

/**
 * Drains ordered flows first in, first out, from `buckets` (from `drained.head` on; both kept up
 * to date as it goes), and yields every outflow with the exact age of the money it spent.
 * `beforeFlow` hears each flow's date before the flow is taken.
 */
function* scoreOutflows(
  ordered: readonly CashFlow[],
  buckets: Bucket[] = [],
  drained = { head: 0 },
  beforeFlow?: (date: string) => void,
): Generator<ScoredOutflow> {
  for (const flow of ordered) {
    beforeFlow?.(flow.date)
    const day = epochDay(flow.date)
    if (flow.amountCents > 0n) {
      const last = buckets[buckets.length - 1]
      if (last && last.day === day && drained.head < buckets.length) last.left += flow.amountCents
      else buckets.push({ day, left: flow.amountCents })
      continue
    }
    let owed = -flow.amountCents
    let dayCents = 0n
    while (owed > 0n && drained.head < buckets.length) {
      const bucket = buckets[drained.head] as Bucket
      const take = bucket.left < owed ? bucket.left : owed
      dayCents += take * BigInt(day - bucket.day)
      bucket.left -= take
      owed -= take
      if (bucket.left === 0n) drained.head++
    }
    yield {
      ...(flow.id !== undefined && { id: flow.id }),
      date: flow.date,
      amountCents: flow.amountCents,
      ageNumerator: dayCents,
      ageDenominator: -flow.amountCents,
    }
  }
}

/** The plain mean of the outflows' exact ages, as a fraction and rounded to a whole day. */
function meanAge(scored: ScoredOutflow[]): AgeOfMoney {
  // The mean of the fractions: sum n_i / d_i over the window, divided by its size.
  let numerator = 0n
  let denominator = 1n
  for (const o of scored) {
    numerator = numerator * o.ageDenominator + o.ageNumerator * denominator
    denominator *= o.ageDenominator
    const g = gcd(numerator, denominator)
    numerator /= g
    denominator /= g
  }
  denominator *= BigInt(scored.length)
  const g = gcd(numerator, denominator)
  numerator /= g
  denominator /= g
  return { days: roundHalfUp(numerator, denominator), numerator, denominator, outflows: scored }
}

/** `n / d` rounded to the nearest integer, halves up, for `n >= 0` and `d > 0`. */
export function roundHalfUp(n: bigint, d: bigint): number {
  return Number((2n * n + d) / (2n * d))
}

/** Days since 1970-01-01 of a YYYY-MM-DD day. */
function epochDay(date: string): number {
  return (
    Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / 86_400_000
  )
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a
  let y = b
  while (y !== 0n) [x, y] = [y, x % y]
  return x === 0n ? 1n : x
}
