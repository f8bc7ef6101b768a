import { convertCentsExact } from '../ledger/exchange-rates/model.ts'

/** Rates to the household's base currency by currency; the base itself is `'1'`. */
export type RatesToBase = ReadonlyMap<string, string>

/** One month of net worth, in base-currency cents. */
export interface NetWorthMonth {
  month: string
  /** The converted balances of accounts above zero at the month's end. */
  assetsCents: bigint
  /** The converted balances of accounts below zero, as a positive magnitude. */
  liabilitiesCents: bigint
  /** Assets less liabilities. */
  netWorthCents: bigint
}

/** An account's balance at some day's end, in its own currency. */
export interface AccountBalance {
  currency: string
  cents: bigint
}

/** One account's rows summed over one month (YYYY-MM), or `''` for every row before the first. */
export interface AccountMonthTotal {
  accountId: string
  currency: string
  month: string
  cents: bigint
}

/**
 * Each account's balance at the end of each of `months`, by account id: `start` (the balances
 * before them; none, zero), plus the `''` totals, then each month's. An account keeps its balance
 * through months without rows.
 */
export function balancesByMonth(
  months: readonly string[],
  totals: readonly AccountMonthTotal[],
  start: ReadonlyMap<string, AccountBalance> = new Map(),
): Map<string, AccountBalance>[] {
  const byMonth = new Map<string, AccountMonthTotal[]>()
  for (const t of totals) {
    const list = byMonth.get(t.month)
    if (list) list.push(t)
    else byMonth.set(t.month, [t])
  }
  const running = new Map(start)
  const add = (month: string) => {
    for (const t of byMonth.get(month) ?? []) {
      running.set(t.accountId, {
        currency: t.currency,
        cents: (running.get(t.accountId)?.cents ?? 0n) + t.cents,
      })
    }
  }
  add('')
  return months.map((month) => {
    add(month)
    return new Map(running)
  })
}

/**
 * Net worth at `month`'s end: each account's balance then, converted to the base currency at its
 * rate and rounded once (half away from zero), counts as an asset above zero and a liability below
 * it. An account in a currency without a rate is left out, never guessed; the caller lists those
 * currencies.
 */
export function netWorthOf(
  month: string,
  balances: Iterable<AccountBalance>,
  rates: RatesToBase,
): NetWorthMonth {
  let assets = 0n
  let liabilities = 0n
  for (const { currency, cents } of balances) {
    const rate = rates.get(currency)
    if (rate === undefined) continue
    const converted = convertCentsExact(cents, rate)
    if (converted > 0n) assets += converted
    else liabilities -= converted
  }
  return { month, assetsCents: assets, liabilitiesCents: liabilities, netWorthCents: assets - liabilities }
}

/** Money in and out of one currency's accounts in one month, both as positive magnitudes. */
export interface MonthFlow {
  month: string
  currency: string
  inCents: bigint
  outCents: bigint
}

/** One month of cash flow, in base-currency cents. */
export interface CashFlowMonth {
  month: string
  incomeCents: bigint
  /** Money out, as a positive magnitude. */
  spendingCents: bigint
  /** Income less spending: what the month saved (negative: what it drew down). */
  netCents: bigint
}

/**
 * Income against spending per month: each month's money in and money out per currency is
 * converted and rounded once, in and out separately (as the daily summary does), then summed.
 * Flows in a currency without a rate are left out; months without flows are zero.
 */
export function cashFlowByMonth(
  months: readonly string[],
  flows: readonly MonthFlow[],
  rates: RatesToBase,
): CashFlowMonth[] {
  const totals = new Map(months.map((m) => [m, { income: 0n, spending: 0n }]))
  for (const f of flows) {
    const month = totals.get(f.month)
    const rate = rates.get(f.currency)
    if (!month || rate === undefined) continue
    month.income += convertCentsExact(f.inCents, rate)
    month.spending += convertCentsExact(f.outCents, rate)
  }
  return [...totals].map(([month, t]) => ({
    month,
    incomeCents: t.income,
    spendingCents: t.spending,
    netCents: t.income - t.spending,
  }))
}
