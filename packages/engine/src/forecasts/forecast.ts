import { type Kysely, sql, type Transaction } from 'kysely'
import { addMonths, lastDayOf, monthOf, monthsFrom } from '../budgets/month.ts'
import type { Database } from '../database.ts'
import { addDays } from '../ledger/model.ts'
import { DATE_TOLERANCE_DAYS } from '../recurrences/cadence.ts'
import { externalIdOf, scheduleOf } from '../recurrences/model.ts'
import { occurrencesBetween } from '../recurrences/schedule.ts'
import type { RecurrenceRow } from '../recurrences/tables.ts'
import { type MonthSplit, projectRest } from './model.ts'
import { type SeriesSpending, seriesKey, seriesSpending } from './series.ts'

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
  "actual + known occurrences (unbooked recurrence occurrences and later-dated rows) + for the series no known occurrence covers, the mean of the last 3 complete months (12 for a category without a season whose history prefers it) after the same day, times a seasonal index where 21+ months show a repeating pattern, less what the month already spent beyond its usual start times the category's carry-over"

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
 * Forecasts a month's spending per category as of `today`: what was spent so far, the known
 * occurrences still to come (unbooked recurrence occurrences and rows dated later), and a
 * projection (`projectRest`) of the series no known occurrence covers, so each expected payment
 * counts once. A month before today's answers its actuals.
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
  const end = lastDayOf(month)
  const monthDays = Number(end.slice(8))
  const futureRows = options.futureRows !== false
  const cells = new Map<string, Cell>()
  const cell = (category: string | null) => {
    const key = category ?? ''
    const c = cells.get(key) ?? { actual: 0, scheduled: 0, projected: 0 }
    cells.set(key, c)
    return c
  }

  // The base averages complete months only: the three before today's month, `lag` months back.
  const lag = period === 'past' ? 0 : monthsFrom(addMonths(monthOf(today), -1), month)
  const readFrom = period === 'past' ? month : addMonths(month, -(2 * lag + 25))
  // A backtest reads nothing dated after the day it forecasts from.
  const seen = !futureRows && period !== 'past' && today < end ? today : end
  // Spending comes summed per day from `forecast_days` (migration 0030), kept by triggers in the
  // same transaction as the ledger's rows, for the household's cash and credit accounts (read
  // first: a join left to the planner looked each day's account up one by one). A month's last
  // day counts as late (after the cut) while the forecast month has days left: it stands for the
  // forecast month's last day, where month-end bills fall.
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
    select category_id, to_char(m, 'YYYY-MM') as month, late, recurring, later, cents from (
      select d.category_id, date_trunc('month', d.date::timestamp) as m,
        ${cutDay < monthDays} and (date_part('day', d.date) > ${cutDay} or date_part('day', d.date + 1) = 1) as late,
        d.recurring,
        d.date > ${today}::date as later,
        sum(d.spent_cents)::text as cents
      from forecast_days d
      where household_id = ${householdId} and account_id in (${sql.join(accounts)})
        and date >= ${`${readFrom}-01`}::date and date <= ${seen}::date
      group by 1, 2, 3, 4, 5
    ) g`.execute(db)

  const history = new Map<string, Map<string, MonthSplit>>()
  const addHistory = (category: string, m: string, late: boolean, cents: number) => {
    const byMonth = history.get(category) ?? new Map<string, MonthSplit>()
    history.set(category, byMonth)
    const split = byMonth.get(m) ?? { early: 0, late: 0 }
    if (late) split.late += cents
    else split.early += cents
    byMonth.set(m, split)
  }
  // What each category spent so far this month, in rows no recurrence booked.
  const soFar = new Map<string, number>()
  let firstMonth = month
  for (const r of rows) {
    const cents = Number(r.cents)
    const category = r.category_id === '' ? null : r.category_id
    if (r.month === month) {
      if (period !== 'past' && r.later) {
        if (futureRows) cell(category).scheduled += cents
      } else {
        cell(category).actual += cents
        if (!r.recurring) soFar.set(r.category_id, (soFar.get(r.category_id) ?? 0) + cents)
      }
      continue
    }
    if (r.month < firstMonth) firstMonth = r.month
    if (!r.recurring) addHistory(r.category_id, r.month, r.late, cents)
  }

  if (period !== 'past') {
    const window = { accounts, cutDay, monthDays }
    const recurrences = await activeRecurrences(db, householdId)
    const covered = new Set(recurrences.map(recurrenceSeries))
    // Rows of this month in a recurrence's series pay its occurrences near their dates.
    const paid = await seriesSpending(db, householdId, covered, { ...window, from: first, to: seen })
    await addScheduled(db, householdId, today, first, end, options, recurrences, paid, cell)
    // Later-dated rows are known occurrences too (counted as scheduled from the daily sums).
    if (futureRows) {
      const later = await seriesSpending(db, householdId, null, {
        ...window,
        from: addDays(today, 1) > first ? addDays(today, 1) : first,
        to: end,
      })
      for (const s of later) if (s.cents > 0) covered.add(s.key)
    }
    // The covered series' history is taken out: their known occurrences replace its projection
    // (and what they paid so far this month is no surprise in the rest's spending).
    const coveredRows = await seriesSpending(db, householdId, covered, {
      ...window,
      from: `${readFrom}-01`,
      to: period === 'current' ? today : addDays(first, -1),
    })
    for (const s of coveredRows) {
      if (s.month === month) soFar.set(s.categoryId, (soFar.get(s.categoryId) ?? 0) - s.cents)
      else addHistory(s.categoryId, s.month, s.late, -s.cents)
    }
    for (const [key, byMonth] of history) {
      const rest = projectRest(byMonth, { month, lag, firstMonth }, soFar.get(key) ?? 0)
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

/** The household's active recurrences on its cash and credit accounts. */
function activeRecurrences(db: Db, householdId: string): Promise<RecurrenceRow[]> {
  return db
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
}

/** The series a recurrence's occurrences belong to. */
function recurrenceSeries(r: RecurrenceRow): string {
  return seriesKey(r.category_id, r.payee_id, r.memo, -Number(r.amount_cents))
}

/**
 * Adds unbooked occurrences of `recurrences` from today to the month's end as scheduled (spending
 * is the negated amount). An occurrence is already paid when a row of its series in the month
 * (`paid`) lies within `DATE_TOLERANCE_DAYS` of its date: a bill paid by hand or imported rather
 * than booked by the schedule, or entered ahead with a later date.
 */
async function addScheduled(
  db: Db,
  householdId: string,
  today: string,
  first: string,
  end: string,
  options: ForecastOptions,
  recurrences: readonly RecurrenceRow[],
  paid: readonly SeriesSpending[],
  cell: (category: string | null) => Cell,
): Promise<void> {
  // Today's occurrence counts until it is booked; a backtest sees today's rows, so it starts tomorrow.
  const day = options.futureRows === false ? addDays(today, 1) : today
  const from = day > first ? day : first
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
    const key = recurrenceSeries(r)
    const dates = paid.filter((s) => s.key === key && s.cents > 0).map((s) => s.date)
    const start = options.futureRows === false || r.run_from < from ? from : r.run_from
    for (const date of occurrencesBetween(scheduleOf(r), start, end)) {
      if (booked.has(externalIdOf(r.id, date))) continue
      const near = dates.findIndex((d) => Math.abs(daysBetween(d, date)) <= DATE_TOLERANCE_DAYS)
      if (near >= 0) {
        dates.splice(near, 1)
        continue
      }
      cell(r.category_id).scheduled += -Number(r.amount_cents)
    }
  }
}

/** Days from `a` to `b` (negative when `b` is earlier). */
function daysBetween(a: string, b: string): number {
  return (Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000
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
