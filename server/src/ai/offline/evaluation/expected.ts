import type { HouseholdPlan, PlanRow } from './household-plan.ts'

/** A period as the evaluation names it, resolved here on its own (not by the assistant's reader). */
export type PeriodSpec =
  | 'thisMonth'
  | 'lastMonth'
  | 'ytd'
  | 'lastYear'
  | 'last30'
  | 'default12'
  | { month: number }
  | { monthsAgo: number }
  | { lastMonths: number }
  | { sinceDay: number }
  | { sinceMonth: number }

/** What a question asks, and so which figures a right answer shows. */
export type Expectation =
  | { intent: 'spending'; target?: string; period: PeriodSpec }
  | { intent: 'breakdown'; period: PeriodSpec; by?: 'category' | 'payee' }
  | { intent: 'income'; period: PeriodSpec }
  | { intent: 'top'; period: PeriodSpec; by: 'category' | 'payee' }
  | { intent: 'compare'; a: PeriodSpec; b: PeriodSpec; target?: string }
  | { intent: 'average'; target?: string; period: PeriodSpec }
  | { intent: 'count'; target: string; period: PeriodSpec }
  | { intent: 'largest'; period: PeriodSpec }
  | { intent: 'balances'; account?: string }
  | { intent: 'netWorth' }
  | { intent: 'budget'; category?: string }
  | { intent: 'upcoming'; days?: number }
  | { intent: 'overspent' | 'readyToAssign' | 'subscriptions' | 'forecast' }
  | { intent: 'move' | 'categorize' | 'createRule'; amountCents?: number }
  | { intent: 'outOfScope' }

const pad = (n: number) => String(n).padStart(2, '0')
const lastDay = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate()

function month(today: string, offset: number): [string, string] {
  const i = Number(today.slice(0, 4)) * 12 + Number(today.slice(5, 7)) - 1 + offset
  const y = Math.floor(i / 12)
  const m = (i % 12) + 1
  return [`${y}-${pad(m)}-01`, `${y}-${pad(m)}-${pad(lastDay(y, m))}`]
}

/** The first and last day of a period on `today`. */
export function resolvePeriod(p: PeriodSpec, today: string): [string, string] {
  const y = Number(today.slice(0, 4))
  const m = Number(today.slice(5, 7))
  if (p === 'thisMonth') return month(today, 0)
  if (p === 'lastMonth') return month(today, -1)
  if (p === 'ytd') return [`${y}-01-01`, today]
  if (p === 'lastYear') return [`${y - 1}-01-01`, `${y - 1}-12-31`]
  if (p === 'last30') {
    return [new Date(Date.parse(`${today}T00:00:00Z`) - 29 * 86_400_000).toISOString().slice(0, 10), today]
  }
  if (p === 'default12') return [month(today, -12)[0], month(today, -1)[1]]
  if ('month' in p) return month(today, p.month <= m ? p.month - m : p.month - m - 12)
  if ('monthsAgo' in p) return month(today, -p.monthsAgo)
  if ('lastMonths' in p) return [month(today, -p.lastMonths)[0], month(today, -1)[1]]
  if ('sinceDay' in p) {
    const d = Number(today.slice(8, 10))
    return [
      p.sinceDay <= d
        ? `${today.slice(0, 8)}${pad(p.sinceDay)}`
        : `${month(today, -1)[0].slice(0, 8)}${pad(p.sinceDay)}`,
      today,
    ]
  }
  return [`${p.sinceMonth <= m ? y : y - 1}-${pad(p.sinceMonth)}-01`, today]
}

/** The plan's figures a question's answer must show. */
export class PlanFigures {
  constructor(readonly plan: HouseholdPlan) {}

  private income = () => new Set(this.plan.categories.filter((c) => c.income).map((c) => c.id))

  /** The rows of a period, narrowed to a category, payee, tag or account by name. */
  rows(p: PeriodSpec, target?: string): PlanRow[] {
    const [from, to] = resolvePeriod(p, this.plan.today)
    const id =
      target &&
      [...this.plan.categories, ...this.plan.payees, ...this.plan.accounts, ...this.plan.tags].find(
        (x) => x.name === target,
      )?.id
    if (target && !id) throw new Error(`No ${target} in the plan`)
    return this.plan.rows.filter(
      (r) =>
        r.date >= from &&
        r.date <= to &&
        (!id || r.categoryId === id || r.payeeId === id || r.accountId === id || r.tagId === id),
    )
  }

  /** Money out less refunds, outside income categories. */
  spent(p: PeriodSpec, target?: string): bigint {
    const income = this.income()
    return this.rows(p, target)
      .filter((r) => !income.has(r.categoryId))
      .reduce((s, r) => s - BigInt(r.amountCents), 0n)
  }

  earned(p: PeriodSpec): bigint {
    const income = this.income()
    return this.rows(p)
      .filter((r) => income.has(r.categoryId))
      .reduce((s, r) => s + BigInt(r.amountCents), 0n)
  }

  /** The group that took the most, and how much. */
  top(p: PeriodSpec, by: 'category' | 'payee'): [string, bigint] {
    const income = this.income()
    const sums = new Map<string, bigint>()
    for (const r of this.rows(p)) {
      if (income.has(r.categoryId)) continue
      const key = by === 'category' ? r.categoryId : r.payeeId
      sums.set(key, (sums.get(key) ?? 0n) - BigInt(r.amountCents))
    }
    const [key, cents] = [...sums].sort((a, b) => (b[1] > a[1] ? 1 : b[1] < a[1] ? -1 : 0))[0]!
    const name = [...this.plan.categories, ...this.plan.payees].find((x) => x.id === key)!.name
    return [name, cents]
  }

  average(p: PeriodSpec, target?: string): bigint {
    const [from, to] = resolvePeriod(p, this.plan.today)
    const months =
      (Number(to.slice(0, 4)) - Number(from.slice(0, 4))) * 12 +
      Number(to.slice(5, 7)) -
      Number(from.slice(5, 7)) +
      1
    const total = this.spent(p, target)
    const q = total / BigInt(months)
    const r = total % BigInt(months)
    return 2n * (r < 0n ? -r : r) >= BigInt(months) ? q + (total < 0n ? -1n : 1n) : q
  }

  largest(p: PeriodSpec): bigint {
    return this.rows(p).reduce(
      (m, r) => (r.amountCents < 0 && BigInt(-r.amountCents) > m ? BigInt(-r.amountCents) : m),
      0n,
    )
  }

  balance(account?: string): bigint {
    return this.plan.rows
      .filter((r) => !account || this.plan.accounts.find((a) => a.name === account)?.id === r.accountId)
      .reduce((s, r) => s + BigInt(r.amountCents), 0n)
  }
}

/** `$1,234.56` for cents, as the assistant writes base-currency figures (USD). */
export function dollars(cents: bigint): string {
  const neg = cents < 0n
  const abs = neg ? -cents : cents
  return `${neg ? '-' : ''}$${(abs / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${(abs % 100n).toString().padStart(2, '0')}`
}
