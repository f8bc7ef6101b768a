import { type Kysely, sql, type Transaction } from 'kysely'
import { ageStateText, readAgeOfMoney } from '../budgets/age-of-money-query.ts'
import { inSnapshot } from '../budgets/closings.ts'
import { addMonths, lastDayOf, monthOf, monthsBetween } from '../budgets/month.ts'
import type { Database } from '../database.ts'
import { invalid } from '../errors.ts'
import { callerToday } from '../ledger/local-day.ts'
import type { HouseholdContext } from '../mutator/context.ts'
import { defineQuery } from '../mutator/define.ts'
import { keepMonths, readKeptMonths } from './closings.ts'
import { type AccountBalance, balancesByMonth, cashFlowByMonth, type MonthFlow, netWorthOf } from './model.ts'
import { ratesToBase } from './rates.ts'
import { type MonthRangeArgs, MonthRangeArgsSchema, REPORT_MAX_MONTHS, reportCost } from './schema.ts'

/** The months a report covers, checked; see `MonthRangeArgsSchema` for the defaults. */
async function monthRange(
  db: Kysely<Database>,
  args: MonthRangeArgs,
  ctx: HouseholdContext,
): Promise<{ fromMonth: string; toMonth: string; months: string[]; today: string }> {
  const today = await callerToday(db, ctx)
  const toMonth = args.toMonth ?? (args.fromMonth ? addMonths(args.fromMonth, 11) : monthOf(today))
  const fromMonth = args.fromMonth ?? addMonths(toMonth, -11)
  if (fromMonth > toMonth) {
    throw invalid('INVALID_DATE_RANGE', 'fromMonth must not be after toMonth.', [
      { path: 'fromMonth', message: 'After toMonth.' },
    ])
  }
  const months = monthsBetween(fromMonth, toMonth)
  if (months.length > REPORT_MAX_MONTHS) {
    throw invalid('WINDOW_TOO_LARGE', `A report covers at most ${REPORT_MAX_MONTHS} months.`, [
      { path: 'toMonth', message: `At most ${REPORT_MAX_MONTHS - 1} months after fromMonth.` },
    ])
  }
  return { fromMonth, toMonth, months, today }
}

const sortedCodes = (codes: Iterable<string>) => [...new Set(codes)].sort()

/** One month of the net-worth report, cents as decimal integer strings. */
export interface NetWorthPoint {
  month: string
  /** The day the balances are taken at: the month's last day. */
  date: string
  assetsCents: string
  liabilitiesCents: string
  netWorthCents: string
}

export interface NetWorthReport {
  baseCurrency: string
  fromMonth: string
  toMonth: string
  months: NetWorthPoint[]
  /** Currencies of accounts left out because no rate converts them to the base currency. */
  unconvertedCurrencies: string[]
}

/**
 * Net worth at the end of each month in the base currency: every live account's balance on the
 * month's last day (open or closed, on or off budget), converted at the household's rate; an
 * account above zero is an asset, one below zero a liability.
 */
export const netWorthReport = defineQuery({
  audience: 'device',
  description:
    'Assets, liabilities and net worth at the end of each month, in the base currency: each account above zero is an asset, below zero a liability.',
  scope: 'read:transactions',
  cost: reportCost,
  args: MonthRangeArgsSchema,
  async run(db, args, ctx): Promise<NetWorthReport> {
    const { fromMonth, toMonth, months, today } = await monthRange(db, args, ctx)
    const read = await inSnapshot(db, (tx) => netWorthBalances(tx, ctx.householdId, months))
    const over = new Map<string, string>()
    read.balances.forEach((balances, i) => {
      const month = months[i] as string
      if (i >= read.keptCount && month < monthOf(today)) over.set(month, balancesText(balances))
    })
    await keepMonths(db, ctx.householdId, 'netWorth', read.version, over)
    const currencies = read.balances.flatMap((b) => [...b.values()].map((a) => a.currency))
    return {
      baseCurrency: read.base,
      fromMonth,
      toMonth,
      months: months.map((month, i) => {
        const p = netWorthOf(month, read.balances[i]!.values(), read.rates)
        return {
          month,
          date: lastDayOf(month),
          assetsCents: String(p.assetsCents),
          liabilitiesCents: String(p.liabilitiesCents),
          netWorthCents: String(p.netWorthCents),
        }
      }),
      unconvertedCurrencies: sortedCodes(currencies.filter((c) => !read.rates.has(c))),
    }
  },
})

/** Each live account's balance, by account id. */
type Balances = Map<string, AccountBalance>

/** How a month's balances are kept: `[accountId, currency, cents]`. */
function balancesText(balances: Balances): string {
  return JSON.stringify([...balances].map(([id, b]) => [id, b.currency, String(b.cents)]))
}

function parseBalances(text: string): Balances {
  const stored = JSON.parse(text) as [string, string, string][]
  return new Map(stored.map(([id, currency, cents]) => [id, { currency, cents: BigInt(cents) }]))
}

/**
 * Every live account's balance at the end of each of `months`: the months kept read as kept; from
 * the first month that is not, the latest kept state before it plus the rows after it (all the
 * rows when none is kept), summed per account and month.
 */
async function netWorthBalances(tx: Transaction<Database>, householdId: string, months: readonly string[]) {
  const [{ base, rates }, kept] = await Promise.all([
    ratesToBase(tx, householdId),
    readKeptMonths(tx, householdId, 'netWorth', months),
  ])
  const balances = kept.kept.map(parseBalances)
  const rest = months.slice(kept.kept.length)
  if (rest.length > 0) {
    const first = rest[0] as string
    const after = kept.start ? sql`and t.date > ${lastDayOf(kept.start.month)}::date` : sql``
    const { rows } = await sql<{ account_id: string; currency: string; month: string; total: string }>`
      select t.account_id, a.currency,
        case when t.date < ${`${first}-01`}::date then '' else to_char(t.date, 'YYYY-MM') end as month,
        sum(t.amount_cents)::text as total
      from transactions t
      join accounts a on a.household_id = t.household_id and a.id = t.account_id
      where t.household_id = ${householdId} and a.deleted_at is null
        and t.deleted_at is null and t.merged_into_id is null
        and t.date <= ${lastDayOf(rest.at(-1) as string)}::date ${after}
      group by 1, 2, 3`.execute(tx)
    const totals = rows.map((r) => ({
      accountId: r.account_id,
      currency: r.currency,
      month: r.month,
      cents: BigInt(r.total),
    }))
    balances.push(...balancesByMonth(rest, totals, kept.start ? parseBalances(kept.start.state) : undefined))
  }
  return { base, rates, balances, keptCount: kept.kept.length, version: kept.version }
}

/** One month of the cash-flow report. */
export interface CashFlowPoint {
  month: string
  incomeCents: string
  spendingCents: string
  netCents: string
}

export interface CashFlowReport {
  baseCurrency: string
  fromMonth: string
  toMonth: string
  months: CashFlowPoint[]
  totals: { incomeCents: string; spendingCents: string; netCents: string }
  unconvertedCurrencies: string[]
}

/**
 * Income against spending per month on the on-budget accounts (cash and credit), in the base
 * currency. A split row counts by its parts; transfers (between any two of the household's own
 * accounts) and system rows (opening balances, adjustments) are neither.
 */
export const cashFlowReport = defineQuery({
  audience: 'device',
  description:
    'Income against spending per month on the on-budget accounts, in the base currency; transfers between your own accounts and opening balances are left out.',
  scope: 'read:transactions',
  cost: reportCost,
  args: MonthRangeArgsSchema,
  async run(db, args, ctx): Promise<CashFlowReport> {
    const { fromMonth, toMonth, months, today } = await monthRange(db, args, ctx)
    const read = await inSnapshot(db, async (tx) => {
      const [{ base, rates }, kept] = await Promise.all([
        ratesToBase(tx, ctx.householdId),
        readKeptMonths(tx, ctx.householdId, 'cashFlow', months),
      ])
      const rest = months.slice(kept.kept.length)
      const { rows } = rest.length
        ? await monthFlows(tx, ctx.householdId, rest[0] as string, rest.at(-1) as string)
        : { rows: [] }
      return { base, rates, kept, rows }
    })
    const flows: MonthFlow[] = read.kept.kept.flatMap((text, i) => parseMonthFlows(months[i] as string, text))
    const computed = new Map<string, MonthFlow[]>(months.slice(read.kept.kept.length).map((m) => [m, []]))
    for (const r of read.rows) {
      const flow = { month: r.month, currency: r.currency, inCents: BigInt(r.in_), outCents: BigInt(r.out_) }
      computed.get(r.month)?.push(flow)
      flows.push(flow)
    }
    const over = new Map<string, string>()
    for (const [month, list] of computed) if (month < monthOf(today)) over.set(month, monthFlowsText(list))
    await keepMonths(db, ctx.householdId, 'cashFlow', read.kept.version, over)
    const points = cashFlowByMonth(months, flows, read.rates)
    const sum = (pick: (p: (typeof points)[number]) => bigint) =>
      String(points.reduce((s, p) => s + pick(p), 0n))
    return {
      baseCurrency: read.base,
      fromMonth,
      toMonth,
      months: points.map((p) => ({
        month: p.month,
        incomeCents: String(p.incomeCents),
        spendingCents: String(p.spendingCents),
        netCents: String(p.netCents),
      })),
      totals: {
        incomeCents: sum((p) => p.incomeCents),
        spendingCents: sum((p) => p.spendingCents),
        netCents: sum((p) => p.netCents),
      },
      unconvertedCurrencies: sortedCodes(flows.map((f) => f.currency).filter((c) => !read.rates.has(c))),
    }
  },
})

/**
 * Money in and out per month and currency on the on-budget accounts from `fromMonth` to
 * `toMonth`: a split row by its parts; transfers and system rows are neither.
 */
function monthFlows(tx: Transaction<Database>, householdId: string, fromMonth: string, toMonth: string) {
  return sql<{ month: string; currency: string; in_: string; out_: string }>`
    with lines as (
      select t.date, a.currency, coalesce(s.amount_cents, t.amount_cents) as amount
      from transactions t
      join accounts a on a.household_id = t.household_id and a.id = t.account_id
        and a.type in ('cash', 'credit') and a.deleted_at is null
      left join transaction_splits s on s.household_id = t.household_id and s.transaction_id = t.id
      where t.household_id = ${householdId}
        and t.date between ${`${fromMonth}-01`}::date and ${lastDayOf(toMonth)}::date
        and t.deleted_at is null and t.merged_into_id is null and t.transfer_group_id is null
        and t.kind = 'normal'
    )
    select to_char(date, 'YYYY-MM') as month, currency,
      coalesce(sum(amount) filter (where amount > 0), 0)::text as in_,
      coalesce(-sum(amount) filter (where amount < 0), 0)::text as out_
    from lines group by 1, 2`.execute(tx)
}

/** How a month's cash flow is kept: `[currency, in cents, out cents]`. */
function monthFlowsText(flows: readonly MonthFlow[]): string {
  return JSON.stringify(flows.map((f) => [f.currency, String(f.inCents), String(f.outCents)]))
}

function parseMonthFlows(month: string, text: string): MonthFlow[] {
  const stored = JSON.parse(text) as [string, string, string][]
  return stored.map(([currency, inCents, outCents]) => ({
    month,
    currency,
    inCents: BigInt(inCents),
    outCents: BigInt(outCents),
  }))
}

/** One month of the age-of-money report. */
export interface AgeOfMoneyPoint {
  month: string
  /** The day the figure is taken at: the month's last day, or the caller's today in its own month. */
  asOf: string
  /** As `budgets.ageOfMoney` answers on `asOf`: null while fewer than ten outflows exist. */
  days: number | null
}

export interface AgeOfMoneyReport {
  fromMonth: string
  toMonth: string
  months: AgeOfMoneyPoint[]
}

/**
 * The age of money at each month's end (the caller's today in the current month), exactly as
 * `budgets.ageOfMoney` computes it on that day, from one pass over the cash flows.
 */
export const ageOfMoneyReport = defineQuery({
  audience: 'device',
  description:
    'The age of money at the end of each month (today in the current month), as budgets.ageOfMoney computes it on that day.',
  scope: 'read:budgets',
  cost: reportCost,
  args: MonthRangeArgsSchema,
  async run(db, args, ctx): Promise<AgeOfMoneyReport> {
    const { fromMonth, toMonth, months, today } = await monthRange(db, args, ctx)
    const current = monthOf(today)
    const points = months.map((m) => (m === current ? today : lastDayOf(m)))
    const read = await readAgeOfMoney(db, ctx.householdId, months, points, current)
    const over = new Map<string, string>()
    read.points.forEach((p, i) => {
      const month = months[i] as string
      if (i >= read.keptCount && month < current) over.set(month, ageStateText(p.state))
    })
    await keepMonths(db, ctx.householdId, 'ageOfMoney', read.version, over)
    return {
      fromMonth,
      toMonth,
      months: months.map((month, i) => ({
        month,
        asOf: points[i]!,
        days: read.points[i]?.figure?.days ?? null,
      })),
    }
  },
})
