import { type Kysely, sql, type Transaction } from 'kysely'
import { dayAfterMonth, monthOf } from '../budgets/month.ts'
import type { Database } from '../database.ts'
import { addDays } from '../ledger/model.ts'
import { externalIdOf, scheduleOf } from '../recurrences/model.ts'
import { occurrencesBetween } from '../recurrences/schedule.ts'
import { type MonthSplit, projectRest, TRAILING_MONTHS } from './model.ts'

type Db = Kysely<Database> | Transaction<Database>

/** One category's forecast for a month; spending is positive cents (money out), refunds lower it. */
export interface CategoryForecast {
  /** Null for uncategorized spending. */
  categoryId: string | null
  actualCents: string
  scheduledCents: string
  projectedCents: string
  totalCents: string
}

/** A month's forecast, per category and in total. */
export interface Forecast {
  month: string
  /** The day it was made as of (the household's today), or null for a month that is over. */
  asOf: string | null
  /** `past` answers actuals; `current` and `future` add scheduled and projected parts. */
  period: 'past' | 'current' | 'future'
  method: string
  categories: CategoryForecast[]
  totals: Omit<CategoryForecast, 'categoryId'>
}

export const FORECAST_METHOD =
  'actual + scheduled + mean of the trailing 3 months after the same day, times a seasonal index from last year'

/** Options a backtest uses: forecast as of a past day, seeing nothing dated after it. */
export interface ForecastOptions {
  /** Count rows dated after today as scheduled (a live forecast); a backtest sees no such rows. */
  futureRows?: boolean
}

interface Cell {
  actual: number
  scheduled: number
  projected: number
}

/**
 * Forecasts a month's spending per category as of `today`: what was spent so far, what is
 * scheduled for the rest of the month (unbooked recurrence occurrences and rows dated later), and
 * a projection of the variable rest (`projectRest`). A month before today's answers its actuals.
 */
export async function forecastMonth(
  db: Db,
  householdId: string,
  month: string,
  today: string,
  options: ForecastOptions = {},
): Promise<Forecast> {
  const period = month < monthOf(today) ? 'past' : month > monthOf(today) ? 'future' : 'current'
  const cutDay = period === 'current' ? Number(today.slice(8)) : 0
  const first = `${month}-01`
  const end = addDays(dayAfterMonth(month), -1)
  const cells = new Map<string, Cell>()
  const cell = (category: string | null) => {
    const key = category ?? ''
    const c = cells.get(key) ?? { actual: 0, scheduled: 0, projected: 0 }
    cells.set(key, c)
    return c
  }

  // The projection reads the trailing three months and a year earlier's four; nothing between
  // (two ranges of the index, so the months between are not scanned).
  const historyFrom = period === 'past' ? month : addMonths(month, -15)
  const readFrom = period === 'past' ? month : addMonths(month, -TRAILING_MONTHS)
  // A backtest reads nothing dated after the day it forecasts from.
  const seen = options.futureRows === false && period !== 'past' && today < end ? today : end
  // Spending comes summed per day from `forecast_days` (migration 0030), kept by triggers in the
  // same transaction as the ledger's rows, for the household's cash and credit accounts (read
  // first: a join left to the planner looked each day's account up one by one).
  const accounts = (
    await db
      .selectFrom('accounts')
      .select('id')
      .where('household_id', '=', householdId)
      .where('type', 'in', ['cash', 'credit'])
      .execute()
  ).map((a) => a.id)
  const { rows } =
    accounts.length === 0
      ? { rows: [] }
      : await sql<{
          category_id: string
          month: string
          late: boolean
          recurring: boolean
          cents: string
          later: boolean
        }>`
    select d.category_id, to_char(d.date, 'YYYY-MM') as month,
      extract(day from d.date) > ${cutDay} as late,
      d.recurring,
      d.date > ${today}::date as later,
      sum(d.spent_cents)::text as cents
    from (
      select * from forecast_days
      where household_id = ${householdId} and account_id in (${sql.join(accounts)})
        and date >= ${`${readFrom}-01`}::date and date <= ${seen}::date
      union all
      select * from forecast_days
      where ${period !== 'past'} and household_id = ${householdId} and account_id in (${sql.join(accounts)})
        and date >= ${`${historyFrom}-01`}::date and date < ${`${addMonths(historyFrom, 4)}-01`}::date
    ) d
    group by 1, 2, 3, 4, 5`.execute(db)

  const history = new Map<string, Map<string, MonthSplit>>()
  for (const r of rows) {
    const cents = Number(r.cents)
    const category = r.category_id === '' ? null : r.category_id
    if (r.month === month) {
      if (period !== 'past' && r.later) {
        if (options.futureRows !== false) cell(category).scheduled += cents
      } else cell(category).actual += cents
      continue
    }
    if (r.recurring) continue
    const key = r.category_id
    const byMonth = history.get(key) ?? new Map<string, MonthSplit>()
    history.set(key, byMonth)
    const split = byMonth.get(r.month) ?? { early: 0, late: 0 }
    if (r.late) split.late += cents
    else split.early += cents
    byMonth.set(r.month, split)
  }

  if (period !== 'past') {
    await addScheduled(db, householdId, today, first, end, options, cell)
    const trailing = [1, 2, 3].slice(0, TRAILING_MONTHS).map((n) => addMonths(month, -n))
    const lastYear = {
      month: addMonths(month, -12),
      before: [13, 14, 15].map((n) => addMonths(month, -n)),
    }
    for (const [key, byMonth] of history) {
      const rest = projectRest(byMonth, trailing, lastYear)
      if (rest !== 0) cell(key === '' ? null : key).projected += rest
    }
  }

  const categories = [...cells.entries()]
    .map(([key, c]) => present(key === '' ? null : key, c))
    .filter((c) => c.totalCents !== '0' || c.actualCents !== '0')
    .sort((a, b) => ((a.categoryId ?? '') < (b.categoryId ?? '') ? -1 : 1))
  const sum = [...cells.values()].reduce(
    (t, c) => ({
      actual: t.actual + c.actual,
      scheduled: t.scheduled + c.scheduled,
      projected: t.projected + c.projected,
    }),
    { actual: 0, scheduled: 0, projected: 0 },
  )
  const { categoryId: _none, ...totals } = present(null, sum)
  return {
    month,
    asOf: period === 'past' ? null : today,
    period,
    method: FORECAST_METHOD,
    categories,
    totals,
  }
}

/** Unbooked recurrence occurrences from today to the month's end (spending is the negated amount). */
async function addScheduled(
  db: Db,
  householdId: string,
  today: string,
  first: string,
  end: string,
  options: ForecastOptions,
  cell: (category: string | null) => Cell,
) {
  // Today's occurrence counts until it is booked; a backtest sees today's rows, so it starts tomorrow.
  const day = options.futureRows === false ? addDays(today, 1) : today
  const from = day > first ? day : first
  const recurrences = await db
    .selectFrom('recurrences as r')
    .innerJoin('accounts as a', (j) =>
      j.onRef('a.household_id', '=', 'r.household_id').onRef('a.id', '=', 'r.account_id'),
    )
    .selectAll('r')
    .where('r.household_id', '=', householdId)
    .where('r.deleted_at', 'is', null)
    .where('r.status', '=', 'active')
    .where('a.type', 'in', ['cash', 'credit'])
    .execute()
  const booked =
    options.futureRows === false
      ? new Set<string>()
      : new Set(
          (
            await db
              .selectFrom('transactions')
              .select('external_id')
              .where('household_id', '=', householdId)
              .where('external_id', 'is not', null)
              .where('date', '>=', from)
              .where('date', '<=', end)
              .execute()
          ).map((r) => r.external_id!),
        )
  for (const r of recurrences) {
    const start = options.futureRows === false || r.run_from < from ? from : r.run_from
    for (const date of occurrencesBetween(scheduleOf(r), start, end)) {
      if (booked.has(externalIdOf(r.id, date))) continue
      cell(r.category_id).scheduled += -Number(r.amount_cents)
    }
  }
}

function present(categoryId: string | null, c: Cell): CategoryForecast {
  return {
    categoryId,
    actualCents: String(c.actual),
    scheduledCents: String(c.scheduled),
    projectedCents: String(c.projected),
    totalCents: String(c.actual + c.scheduled + c.projected),
  }
}

/** The month `n` months from `month` (back when negative). */
export function addMonths(month: string, n: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number]
  const index = y * 12 + (m - 1) + n
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`
}
