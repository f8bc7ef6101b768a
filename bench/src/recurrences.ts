import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type Forecast,
  forecastMonth,
  migrateToLatest,
  openPGliteStore,
  operations,
  runQuery,
  type Store,
} from '@hearth/engine'
import { openPostgresStore } from '@hearth/engine/node'
import { sql } from 'kysely'
import { benchArgs, type StoreName, scratchPostgres } from './bench-store.ts'
import { type RecurrenceHousehold, seedRecurrenceHousehold } from './recurrences-seed.ts'
import { type Comparison, printReport, time } from './stats.ts'

/**
 * `npm run bench:recurrences -- [--store pglite|postgres|both]`: on a generated household of
 * 100,000 rows over three years, times suggestions, upcoming (90 days) and a month's forecast,
 * each beside the raw SQL of its reads; then backtests the forecast over the last 12 months.
 */
async function main(): Promise<void> {
  const { stores } = benchArgs()
  const report: Comparison[] = []
  console.log(
    `load average at the start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')}`,
  )
  let backtested = false
  for (const name of stores) {
    const { store, close } = await open(name)
    try {
      const started = performance.now()
      const h = await seedRecurrenceHousehold(store)
      console.log(`${name}: seeded ${h.transactions} rows in ${Math.round(performance.now() - started)} ms`)
      report.push(...(await measure(name, store, h)))
      if (!backtested) {
        await backtest(store, h)
        backtested = true
      }
    } finally {
      await close()
    }
  }
  printReport(report)
  console.log(
    `load average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')}`,
  )
}

async function open(name: StoreName): Promise<{ store: Store; close: () => Promise<void> }> {
  if (name === 'postgres') {
    const db = await scratchPostgres('hearth_bench_recurrences')
    const store = await openPostgresStore({ url: db.url, poolSize: 4 })
    await migrateToLatest(store.db)
    return {
      store,
      close: async () => {
        await store.close()
        await db.drop()
      },
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'hearth-bench-recurrences-'))
  const store = await openPGliteStore({ dataDir: dir })
  await migrateToLatest(store.db)
  return {
    store,
    close: async () => {
      await store.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

async function measure(name: StoreName, store: Store, h: RecurrenceHousehold): Promise<Comparison[]> {
  const { ctx, today } = h
  const hh = ctx.householdId
  const suggestions = await time(() => runQuery(store.db, operations.recurrences.suggestions, {}, ctx), {
    runs: 7,
    warmup: 1,
  })
  const found = await runQuery(store.db, operations.recurrences.suggestions, {}, ctx)
  console.log(
    `${name}: ${found.items.length} suggestions: ${found.items.map((s) => `${s.name} (${s.kind})`).join(', ')}`,
  )
  // The household's shops are visited at random: any of them found recurring is a false positive.
  const shops = found.items.filter((s) => s.name.startsWith('Shop '))
  console.log(`${name}: random shops reported as recurring: ${shops.length}`)
  // The reads detection makes: every group's rows packed in one text, and the tracked payees' rows.
  const historyRead = async () => {
    await sql`select t.account_id, t.payee_id, case when t.payee_id is null then t.memo end,
          string_agg(t.id || ' ' || (t.date - date '1970-01-01') || ' ' || t.amount_cents, ',')
        from transactions t
        where t.household_id = ${hh} and t.deleted_at is null and t.merged_into_id is null and t.kind = 'normal'
          and t.transfer_group_id is null and t.date > ${today}::date - 762 and t.date <= ${today}
          and t.source <> 'recurring' and (t.external_id is null or t.external_id not like 'recurrence:%')
          and (t.payee_id is not null or t.memo is not null)
        group by 1, 2, 3`.execute(store.db)
    await sql`select t.id, t.account_id, t.date, t.amount_cents, t.category_id, t.payee_id, t.memo, t.external_id,
          t.source
        from transactions t
        where t.household_id = ${hh} and t.deleted_at is null and t.merged_into_id is null and t.kind = 'normal'
          and t.transfer_group_id is null and t.date > ${today}::date - 762 and t.date <= ${today}
          and t.payee_id in (select payee_id from recurrences where household_id = ${hh} and deleted_at is null)`.execute(
      store.db,
    )
  }
  const suggestionsSql = await time(historyRead, { runs: 7, warmup: 1 })

  const upcoming = await time(() => runQuery(store.db, operations.recurrences.upcoming, { days: 90 }, ctx))
  const upcomingSql = await time(async () => {
    await sql`select id, type, balance_cents, payment_due_day from accounts where household_id = ${hh}
      and deleted_at is null and status = 'open'`.execute(store.db)
    await sql`select id, account_id, date, amount_cents from transactions where household_id = ${hh}
      and deleted_at is null and merged_into_id is null and date >= ${today} and date <= ${today}::date + 89`.execute(
      store.db,
    )
    await sql`select * from recurrences where household_id = ${hh} and deleted_at is null and status = 'active'`.execute(
      store.db,
    )
  })

  const month = today.slice(0, 7)
  const forecast = await time(() => runQuery(store.db, operations.forecasts.get, { month }, ctx))
  // The reads a forecast makes: the kept daily sums (migration 0030), recurrences and booked ids.
  const forecastSql = await time(async () => {
    const accounts = await sql<{ id: string }>`select id from accounts where household_id = ${hh}
        and type in ('cash', 'credit')`.execute(store.db)
    const ids = sql.join(accounts.rows.map((a) => a.id))
    await sql`select d.category_id, to_char(d.date, 'YYYY-MM'), extract(day from d.date) > 10, d.recurring,
          d.date > ${today}::date, sum(d.spent_cents)
        from (
          select * from forecast_days where household_id = ${hh} and account_id in (${ids})
            and date >= ${`${month}-01`}::date - interval '3 months' and date <= ${today}::date + 40
          union all
          select * from forecast_days where household_id = ${hh} and account_id in (${ids})
            and date >= ${`${month}-01`}::date - interval '15 months'
            and date < ${`${month}-01`}::date - interval '11 months'
        ) d
        group by 1, 2, 3, 4, 5`.execute(store.db)
    await sql`select r.* from recurrences r join accounts a on a.household_id = r.household_id and a.id = r.account_id
        where r.household_id = ${hh} and r.deleted_at is null and r.status = 'active'
          and a.type in ('cash', 'credit')`.execute(store.db)
    await sql`select external_id from transactions where household_id = ${hh} and external_id is not null
        and date >= ${today} and date <= ${`${month}-01`}::date + interval '1 month' - interval '1 day'`.execute(
      store.db,
    )
  })
  // What the forecast's ledger read cost before migration 0030 kept daily sums, for comparison.
  const ledgerScan = await time(() =>
    sql`select coalesce(s.category_id, t.category_id), to_char(t.date, 'YYYY-MM'), extract(day from t.date) > 10,
          sum(-coalesce(s.amount_cents, t.amount_cents))
        from transactions t
        join accounts a on a.household_id = t.household_id and a.id = t.account_id and a.type in ('cash', 'credit')
        left join transaction_splits s on s.household_id = t.household_id and s.transaction_id = t.id
        where t.household_id = ${hh} and t.deleted_at is null and t.merged_into_id is null and t.kind = 'normal'
          and t.transfer_group_id is null and t.date >= ${`${month}-01`}::date - interval '15 months'
          and (t.date >= ${`${month}-01`}::date - interval '3 months'
            or t.date < ${`${month}-01`}::date - interval '11 months')
        group by 1, 2, 3`.execute(store.db),
  )
  console.log(
    `${name}: the forecast's former ledger read (before migration 0030) p50 ${ledgerScan.medianMs.toFixed(2)} ms`,
  )
  return [
    {
      store: name,
      measure: 'suggestions (3y, 100k rows)',
      engine: suggestions,
      baseline: suggestionsSql,
      targetMs: 2000,
    },
    { store: name, measure: 'upcoming 90 days', engine: upcoming, baseline: upcomingSql, targetMs: 20 },
    { store: name, measure: 'forecast current month', engine: forecast, baseline: forecastSql, targetMs: 50 },
  ]
}

/** Spending per category (positive cents) a forecast's parts add up to. */
function totals(f: Forecast): Map<string, number> {
  return new Map(f.categories.map((c) => [c.categoryId ?? '', Number(c.totalCents)]))
}

function addMonths(month: string, n: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number]
  const i = y * 12 + (m - 1) + n
  return `${Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`
}

/**
 * For each of the last 12 complete months: the forecast made on its 10th from rows dated up to
 * then, against last month's spending and the trailing three-month mean; mean absolute error per
 * category, in currency units.
 */
async function backtest(store: Store, h: RecurrenceHousehold): Promise<void> {
  const hh = h.ctx.householdId
  const current = h.today.slice(0, 7)
  const actual = new Map<string, Map<string, number>>()
  const actualOf = async (month: string) => {
    if (!actual.has(month)) actual.set(month, totals(await forecastMonth(store.db, hh, month, h.today)))
    return actual.get(month)!
  }
  const names = new Map([...h.categories].map(([name, id]) => [id, name]))
  const errors = new Map<string, { method: number; last: number; trailing: number }>()
  for (let k = 12; k >= 1; k--) {
    const month = addMonths(current, -k)
    const forecast = totals(await forecastMonth(store.db, hh, month, `${month}-10`, { futureRows: false }))
    const truth = await actualOf(month)
    const last = await actualOf(addMonths(month, -1))
    const before = [await actualOf(addMonths(month, -2)), await actualOf(addMonths(month, -3))]
    for (const [id, name] of names) {
      if (name === 'Income') continue
      const t = truth.get(id) ?? 0
      const e = errors.get(name) ?? { method: 0, last: 0, trailing: 0 }
      const mean = ((last.get(id) ?? 0) + (before[0]!.get(id) ?? 0) + (before[1]!.get(id) ?? 0)) / 3
      e.method += Math.abs((forecast.get(id) ?? 0) - t) / 12
      e.last += Math.abs((last.get(id) ?? 0) - t) / 12
      e.trailing += Math.abs(mean - t) / 12
      errors.set(name, e)
    }
  }
  console.log('\nForecast backtest: 12 months, forecast on day 10, MAE per category (currency units)\n')
  console.log('| category | forecast MAE | last month MAE | trailing 3-month MAE | beats both |')
  console.log('|---|---|---|---|---|')
  const sum = { method: 0, last: 0, trailing: 0 }
  for (const [name, e] of [...errors].sort()) {
    sum.method += e.method
    sum.last += e.last
    sum.trailing += e.trailing
    const beats = e.method < e.last && e.method < e.trailing ? 'yes' : 'no'
    console.log(
      `| ${name} | ${(e.method / 100).toFixed(2)} | ${(e.last / 100).toFixed(2)} | ${(e.trailing / 100).toFixed(2)} | ${beats} |`,
    )
  }
  const n = errors.size
  console.log(
    `| mean over categories | ${(sum.method / n / 100).toFixed(2)} | ${(sum.last / n / 100).toFixed(2)} | ${(sum.trailing / n / 100).toFixed(2)} | ${sum.method < sum.last && sum.method < sum.trailing ? 'yes' : 'no'} |\n`,
  )
}

await main()
