import {
  type HouseholdContext,
  operations,
  type Query,
  runMutation,
  runQuery,
  SCOPES,
  type Store,
} from '@hearth/engine'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { benchArgs, openScratchStore } from './bench-store.ts'
import { type Comparison, printReport, time } from './stats.ts'

/** The household of issue 30's reports: 20,000 rows over two years, in two currencies. */
const SIZE = { transactions: 20_000, categories: 40, payees: 200, months: 24, first: '2024-12-01' }
const ROWS = () => `${Math.round(SIZE.transactions / 1000)}k rows`
const RANGE = { fromMonth: '2024-12', toMonth: '2026-11' }

/**
 * `npm run bench:reports [-- --store pglite|postgres|both] [--transactions N]`: the four reports
 * (24 months) on a household of 20,000 rows (or N), each beside the raw SQL aggregate it is built on. Each run seeds a
 * scratch store of its own in SQL and drops it at the end.
 */
async function main(): Promise<void> {
  const { stores, transactions } = benchArgs()
  if (transactions !== undefined) SIZE.transactions = transactions
  const rows: Comparison[] = []
  for (const name of stores) {
    const { store, drop } = await openScratchStore(name, 'reports', { durable: false })
    try {
      const ctx = await seed(store)
      rows.push(...(await measure(name, store, ctx)))
    } finally {
      await store.close()
      await drop()
    }
  }
  printReport(rows)
}

/** Catalog, accounts and payees through mutators; the rows in SQL. */
async function seed(store: Store): Promise<HouseholdContext> {
  const userId = ulid()
  const householdId = ulid()
  const actor = { userId, scopes: [...SCOPES], now: new Date('2026-11-20T12:00:00Z') }
  const ctx: HouseholdContext = { ...actor, householdId, role: 'owner' }
  const run = (mutator: any, args: unknown) => runMutation(store.db, mutator, args, ctx)
  await runMutation(store.db, operations.users.create, { id: userId, name: 'Bench owner' }, actor)
  await run(operations.households.create, { id: householdId, name: 'Reports bench', baseCurrency: 'USD' })
  await run(operations.exchangeRates.upsert, { fromCurrency: 'EUR', toCurrency: 'USD', rate: '1.08' })
  const groupId = ulid()
  await run(operations.categoryGroups.create, { id: groupId, name: 'Everyday' })
  const categories: string[] = []
  for (let c = 0; c < SIZE.categories; c++) {
    const id = ulid()
    await run(operations.categories.create, { id, groupId, name: `Category ${c + 1}` })
    categories.push(id)
  }
  const payees = Array.from({ length: SIZE.payees }, () => ulid())
  await sql`insert into payees (household_id, id, name, normalized_name)
    select ${householdId}, p, 'Payee ' || i, 'payee ' || i from unnest(${payees}::text[]) with ordinality as t(p, i)`.execute(
    store.db,
  )
  const account = async (type: string, name: string, currency = 'USD') => {
    const id = ulid()
    await run(operations.accounts.create, { id, name, type, currency })
    return id
  }
  const spendOn = [
    await account('cash', 'Checking'),
    await account('cash', 'Savings'),
    await account('credit', 'Visa'),
    await account('cash', 'Euro', 'EUR'),
    await account('tracking', 'Brokerage'),
  ]
  const h = householdId
  const days = Math.floor((SIZE.months * 365) / 12)
  const transfers = 500
  const plain = SIZE.transactions - 2 * transfers - SIZE.months
  await sql`
    insert into transactions (household_id, id, account_id, date, amount_cents, category_id, payee_id, status, source)
    select ${h}, 'S' || lpad(i::text, 25, '0'), (${spendOn}::text[])[1 + (i * 7) % 5],
      ${SIZE.first}::date + (i * 13) % ${days}, -(100 + (i * 37) % 20000) + case when i % 40 = 0 then 30000 else 0 end,
      (${categories}::text[])[1 + (i * 31) % ${categories.length}], (${payees}::text[])[1 + (i * 17) % ${payees.length}],
      'cleared', 'manual'
    from generate_series(1, ${plain}) as i`.execute(store.db)
  await sql`
    insert into transactions (household_id, id, account_id, date, amount_cents, status, source)
    select ${h}, 'I' || lpad(m::text, 25, '0'), ${spendOn[0]}, (${SIZE.first}::date + make_interval(months => m))::date,
      6000000, 'cleared', 'manual'
    from generate_series(0, ${SIZE.months - 1}) as m`.execute(store.db)
  await sql`
    insert into transactions (household_id, id, account_id, date, amount_cents, status, source, transfer_group_id)
    select ${h}, 'T' || lpad(i::text, 24, '0') || leg,
      case when leg = 'a' then ${spendOn[0]} else (${[spendOn[1], spendOn[2], spendOn[4]]}::text[])[1 + i % 3] end,
      ${SIZE.first}::date + (i * 17) % ${days},
      case when leg = 'a' then -150000 else 150000 end, 'cleared', 'manual', 'T' || lpad(i::text, 24, '0') || 'a'
    from generate_series(1, ${transfers}) as i cross join (values ('a'), ('b')) as l(leg)`.execute(store.db)
  await sql`vacuum analyze`.execute(store.db)
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from transactions where household_id = ${h}`.execute(store.db)
  console.log(`seeded ${rows[0]!.n} transactions, ${categories.length} categories, ${SIZE.months} months`)
  return ctx
}

async function measure(name: string, store: Store, ctx: HouseholdContext): Promise<Comparison[]> {
  const { db } = store
  const h = ctx.householdId
  const from = `${RANGE.fromMonth}-01`
  const to = '2026-11-30'
  const read = (query: Parameters<typeof runQuery>[1], args: unknown) => () => runQuery(db, query, args, ctx)
  const spending = { fromDate: '2025-12-01', toDate: '2026-11-30', groupBy: 'category' }
  for (const [label, q, a] of [
    ['net worth', operations.reports.netWorth, RANGE],
    ['cash flow', operations.reports.cashFlow, RANGE],
    ['age of money', operations.reports.ageOfMoney, RANGE],
  ] as const) {
    const r = (await runQuery(db, q as Query, a, ctx)) as { months: unknown[] }
    console.log(`[${name}] ${label}: ${r.months.length} months, last ${JSON.stringify(r.months.at(-1))}`)
  }
  // Net worth, cash flow and age of money keep the months that are over (migration 0051):
  // measured with nothing kept (as the first read, or after a change to the range's first month)
  // and with 23 of the 24 months kept.
  const forget = () => sql`delete from report_closings where household_id = ${h}`.execute(db)
  /** A kept report both ways, beside its raw statement (timed once, for both rows). */
  const bothWays = async (
    label: string,
    query: Query,
    raw: () => Promise<unknown>,
  ): Promise<Comparison[]> => {
    const baseline = await time(raw)
    return [
      {
        store: name,
        measure: `${label}, nothing kept`,
        engine: await time(read(query, RANGE), { before: forget }),
        baseline,
      },
      { store: name, measure: `${label}, 23 kept`, engine: await time(read(query, RANGE)), baseline },
    ]
  }
  return [
    // The raw statement: the rows summed per account and month.
    ...(await bothWays(
      `reports.netWorth, 24 months (${ROWS()}, 5 accounts, 2 currencies)`,
      operations.reports.netWorth as Query,
      () =>
        sql`select account_id, to_char(date, 'YYYY-MM'), sum(amount_cents) from transactions
          where household_id = ${h} and deleted_at is null and date <= ${to}::date group by 1, 2`.execute(db),
    )),
    ...(await bothWays('reports.cashFlow, 24 months', operations.reports.cashFlow as Query, () =>
      sql`select to_char(date, 'YYYY-MM'), sum(amount_cents) filter (where amount_cents > 0),
          sum(amount_cents) filter (where amount_cents < 0) from transactions
          where household_id = ${h} and deleted_at is null and transfer_group_id is null
            and date between ${from}::date and ${to}::date group by 1`.execute(db),
    )),
    {
      store: name,
      measure: 'reports.spending by category, 12 months',
      engine: await time(read(operations.reports.spending, spending)),
      baseline: await time(() =>
        sql`select category_id, sum(amount_cents) from transactions
          where household_id = ${h} and deleted_at is null and transfer_group_id is null
            and date between ${spending.fromDate}::date and ${spending.toDate}::date group by 1`.execute(db),
      ),
    },
    {
      store: name,
      measure: 'reports.spending by payee, 12 months',
      engine: await time(read(operations.reports.spending, { ...spending, groupBy: 'payee' })),
      baseline: await time(() =>
        sql`select payee_id, sum(amount_cents) from transactions
          where household_id = ${h} and deleted_at is null and transfer_group_id is null
            and date between ${spending.fromDate}::date and ${spending.toDate}::date group by 1`.execute(db),
      ),
    },
    // The raw statement: every counted row, in order.
    ...(await bothWays(
      'reports.ageOfMoney, 24 months (one FIFO pass)',
      operations.reports.ageOfMoney as Query,
      () =>
        sql`select id, date, amount_cents from transactions
          where household_id = ${h} and deleted_at is null and date <= ${to}::date order by date, id`.execute(
          db,
        ),
    )),
    {
      store: name,
      measure: 'budgets.ageOfMoney 24 times (one per month end), for comparison',
      engine: await time(
        async () => {
          for (const m of (await runQuery(db, operations.reports.ageOfMoney, RANGE, ctx)).months)
            await runQuery(db, operations.budgets.ageOfMoney, { asOf: m.asOf }, ctx)
        },
        { runs: 5, warmup: 1 },
      ),
      baseline: await time(read(operations.reports.ageOfMoney, RANGE), { runs: 5, warmup: 1 }),
    },
  ]
}

await main()
