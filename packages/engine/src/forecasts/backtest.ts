import type { Kysely } from 'kysely'
import { addMonths, monthOf } from '../budgets/month.ts'
import { deriveUlid } from '../catalog/index.ts'
import type { Database } from '../database.ts'
import type { HouseholdContext } from '../mutator/context.ts'
import { runMutation } from '../mutator/run.ts'
import { operations } from '../registry.ts'
import { forecastMonth } from './forecast.ts'
import { TRAILING_MONTHS } from './model.ts'
import type { SampleForecastHousehold } from './sample-households.ts'

/** When a backtest forecast is made: on `day` of the month `ahead` months before the one forecast. */
export interface BacktestAsk {
  day: number
  ahead: number
}

/** One forecast held out against what the month spent, beside the two naive baselines (cents). */
export interface BacktestObservation {
  categoryId: string | null
  month: string
  ask: BacktestAsk
  actual: number
  method: number
  /** The last complete month's spending at the time of asking. */
  lastMonth: number
  /** The mean of the three last complete months' spending at the time of asking. */
  trailing: number
}

/** Mean absolute errors, in cents. */
export interface BacktestErrors {
  method: number
  lastMonth: number
  trailing: number
  count: number
}

/**
 * Forecasts each of `months` as of each of `asks` from what was dated up to that day, and sets it
 * beside what the month spent (read as of `today`, after all of them) and the naive baselines,
 * per category that spent anything in a month read.
 */
export async function backtestForecasts(
  db: Kysely<Database>,
  householdId: string,
  months: readonly string[],
  asks: readonly BacktestAsk[],
  today: string,
): Promise<BacktestObservation[]> {
  const spent = new Map<string, Map<string | null, number>>()
  const spentIn = async (month: string) => {
    let m = spent.get(month)
    if (!m) {
      const f = await forecastMonth(db, householdId, month, today)
      m = new Map(f.categories.map((c) => [c.categoryId, Number(c.actualCents)]))
      spent.set(month, m)
    }
    return m
  }
  const out: BacktestObservation[] = []
  for (const month of months) {
    for (const ask of asks) {
      const asOf = `${addMonths(month, -ask.ahead)}-${String(ask.day).padStart(2, '0')}`
      const forecast = await forecastMonth(db, householdId, month, asOf, { futureRows: false })
      const method = new Map(forecast.categories.map((c) => [c.categoryId, Number(c.totalCents)]))
      const complete = Array.from({ length: TRAILING_MONTHS }, (_, k) => addMonths(monthOf(asOf), -1 - k))
      const before = await Promise.all(complete.map(spentIn))
      const actual = await spentIn(month)
      const categories = new Set([
        ...actual.keys(),
        ...method.keys(),
        ...before.flatMap((b) => [...b.keys()]),
      ])
      for (const categoryId of categories) {
        const of = (m: Map<string | null, number>) => m.get(categoryId) ?? 0
        out.push({
          categoryId,
          month,
          ask,
          actual: of(actual),
          method: of(method),
          lastMonth: of(before[0]!),
          trailing: before.reduce((s, b) => s + of(b), 0) / TRAILING_MONTHS,
        })
      }
    }
  }
  return out
}

/** Mean absolute errors of the method and each baseline, per category. */
export function meanAbsoluteErrors(
  observations: readonly BacktestObservation[],
): Map<string | null, BacktestErrors> {
  const out = new Map<string | null, BacktestErrors>()
  for (const o of observations) {
    const e = out.get(o.categoryId) ?? { method: 0, lastMonth: 0, trailing: 0, count: 0 }
    e.method += Math.abs(o.method - o.actual)
    e.lastMonth += Math.abs(o.lastMonth - o.actual)
    e.trailing += Math.abs(o.trailing - o.actual)
    e.count += 1
    out.set(o.categoryId, e)
  }
  for (const e of out.values()) {
    e.method /= e.count
    e.lastMonth /= e.count
    e.trailing /= e.count
  }
  return out
}

/**
 * Writes a sample household into `ctx`'s household: a checking account, its categories, its rows
 * (in bulk, payees by name) and its recurrences. Ids derive from the household's, so a run is
 * the same every time. Answers the category ids by name.
 */
export async function seedSampleHousehold(
  db: Kysely<Database>,
  ctx: HouseholdContext,
  sample: SampleForecastHousehold,
): Promise<Map<string, string>> {
  const id = (name: string) => deriveUlid(ctx.householdId, `forecast-sample:${name}`)
  const run = (op: Parameters<typeof runMutation>[1], args: unknown) => runMutation(db, op, args, ctx)
  const account = id('account')
  await run(operations.accounts.create, { id: account, name: 'Checking', type: 'cash' })
  const group = id('group')
  await run(operations.categoryGroups.create, { id: group, name: 'Spending' })
  const categories = new Map<string, string>()
  for (const name of sample.categories) {
    categories.set(name, id(`category:${name}`))
    await run(operations.categories.create, { id: categories.get(name), groupId: group, name })
  }
  for (let i = 0; i < sample.rows.length; i += 500) {
    const transactions = sample.rows.slice(i, i + 500).map((r, k) => ({
      id: id(`row:${i + k}`),
      accountId: account,
      date: r.date,
      amountCents: r.cents,
      categoryId: categories.get(r.category),
      payeeName: r.payee,
    }))
    await run(operations.transactions.bulkCreate, { transactions })
  }
  for (const r of sample.recurrences) {
    const payee = await db
      .selectFrom('payees')
      .select('id')
      .where('household_id', '=', ctx.householdId)
      .where('name', '=', r.payee)
      .executeTakeFirstOrThrow()
    await run(operations.recurrences.create, {
      id: id(`recurrence:${r.name}`),
      name: r.name,
      accountId: account,
      amountCents: r.cents,
      payeeId: payee.id,
      categoryId: categories.get(r.category),
      frequency: r.frequency,
      interval: r.interval,
      startDate: r.startDate,
    })
  }
  return categories
}
