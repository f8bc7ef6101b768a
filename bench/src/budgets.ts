import {
  activityQuery,
  type HouseholdContext,
  operations,
  runMutation,
  runQuery,
  SCOPES,
  type Store,
} from '@hearth/engine'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { benchArgs, openScratchStore } from './bench-store.ts'
import { type Comparison, printReport, time } from './stats.ts'

/** Targets from the budgets issue: the month snapshot on PostgreSQL and on a device's PGlite, a local assignment. */
const TARGETS = { postgres: 20, pglite: 60, assign: 10 }
/** The household of the issue: 100,000 rows, 150 categories, three years. */
const SIZE = { transactions: 100_000, categories: 150, months: 36, first: '2023-12-01' }
const MONTH = '2026-11'
const PREVIOUS = '2026-10'

/**
 * `npm run bench:budgets [-- --store pglite|postgres|both]`: the month snapshot of a household of
 * 100,000 rows over 150 categories and three years, beside the raw SQL of the same sums, and an
 * assignment beside its raw upsert. Each run seeds a scratch store of its own in SQL (seconds,
 * not the minutes mutators take) and drops it at the end.
 */
async function main(): Promise<void> {
  const { stores } = benchArgs()
  const rows: Comparison[] = []
  for (const name of stores) {
    const { store, drop } = await openScratchStore(name, 'budgets', { durable: false })
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

/** Builds the household: catalog and accounts through mutators, rows and assignments in SQL. */
async function seed(store: Store): Promise<HouseholdContext> {
  const userId = ulid()
  const householdId = ulid()
  const now = new Date()
  const actor = { userId, scopes: [...SCOPES], now }
  const ctx: HouseholdContext = { ...actor, householdId, role: 'owner' }
  const run = (mutator: any, args: unknown) => runMutation(store.db, mutator, args, ctx)
  await runMutation(store.db, operations.users.create, { id: userId, name: 'Bench owner' }, actor)
  await run(operations.households.create, { id: householdId, name: 'Budget bench', baseCurrency: 'EUR' })
  const income = ulid()
  await run(operations.categoryGroups.create, { id: income, name: 'Income', isIncome: true })
  const salary = ulid()
  await run(operations.categories.create, { id: salary, groupId: income, name: 'Salary' })
  const categories: string[] = []
  for (let g = 0; g < SIZE.categories / 10; g++) {
    const groupId = ulid()
    await run(operations.categoryGroups.create, { id: groupId, name: `Group ${g + 1}` })
    for (let c = 0; c < 10; c++) {
      const id = ulid()
      await run(operations.categories.create, { id, groupId, name: `Category ${g + 1}.${c + 1}` })
      categories.push(id)
    }
  }
  const account = async (type: string, name: string) => {
    const id = ulid()
    await run(operations.accounts.create, { id, name, type })
    return id
  }
  const cash = [
    await account('cash', 'Checking'),
    await account('cash', 'Savings'),
    await account('cash', 'Wallet'),
  ]
  const cards = [await account('credit', 'Visa'), await account('credit', 'Mastercard')]
  const off = [await account('loan', 'Mortgage'), await account('tracking', 'Brokerage')]
  const spendOn = [...cash, cash[0]!, cash[0]!, ...cards, cards[0]!, off[0]!]
  const h = householdId

  // Spending: 97% of the rows, spread over three years, accounts and categories.
  const plain = SIZE.transactions - 2 * 1_000 - SIZE.months
  await sql`
    insert into transactions (household_id, id, account_id, date, amount_cents, category_id, status, source)
    select ${h}, 'S' || lpad(i::text, 25, '0'),
      (${spendOn}::text[])[1 + (i * 7) % ${spendOn.length}],
      ${SIZE.first}::date + (i * 13) % (${SIZE.months} * 365 / 12),
      -(100 + (i * 37) % 20000) + case when i % 50 = 0 then 25000 else 0 end,
      (${categories}::text[])[1 + (i * 31) % ${categories.length}],
      'cleared', 'manual'
    from generate_series(1, ${plain}) as i`.execute(store.db)
  // Salary into checking on the first of every month.
  await sql`
    insert into transactions (household_id, id, account_id, date, amount_cents, category_id, status, source)
    select ${h}, 'I' || lpad(m::text, 25, '0'), ${cash[0]}, (${SIZE.first}::date + make_interval(months => m))::date,
      4000000, ${salary}, 'cleared', 'manual'
    from generate_series(0, ${SIZE.months - 1}) as m`.execute(store.db)
  // 1,000 transfers: card payments, savings, and the mortgage.
  const targets = [cards[0]!, cards[1]!, cash[1]!, off[0]!]
  await sql`
    insert into transactions (household_id, id, account_id, date, amount_cents, status, source, transfer_group_id)
    select ${h}, 'T' || lpad(i::text, 24, '0') || leg, case when leg = 'a' then ${cash[0]} else (${targets}::text[])[1 + i % 4] end,
      ${SIZE.first}::date + (i * 17) % (${SIZE.months} * 365 / 12),
      case when leg = 'a' then -150000 else 150000 end, 'cleared', 'manual', 'T' || lpad(i::text, 24, '0') || 'a'
    from generate_series(1, 1000) as i cross join (values ('a'), ('b')) as l(leg)`.execute(store.db)
  // Every category assigned every month.
  await sql`
    insert into budget_cells (household_id, id, month, category_id, assigned_cents)
    select ${h}, to_char(${SIZE.first}::date + make_interval(months => m), 'YYYY-MM') || ':' || c, to_char(${SIZE.first}::date + make_interval(months => m), 'YYYY-MM'),
      c, 20000 + (m * 11) % 5000
    from generate_series(0, ${SIZE.months - 1}) as m cross join unnest(${categories}::text[]) as c`.execute(
    store.db,
  )
  // The seed updates each kept sum several times in one go; autovacuum compacts that over time.
  await sql`vacuum full analyze`.execute(store.db)
  const { rows } = await sql<{
    n: number
  }>`select count(*)::int as n from transactions where household_id = ${h}`.execute(store.db)
  console.log(`seeded ${rows[0]!.n} transactions, ${categories.length} categories, ${SIZE.months} months`)
  return { ...ctx, now: new Date() }
}

async function measure(name: string, store: Store, ctx: HouseholdContext): Promise<Comparison[]> {
  const { db } = store
  const h = ctx.householdId
  const snapshotTarget = name === 'postgres' ? TARGETS.postgres : TARGETS.pglite
  const categories = (
    await sql<{
      id: string
    }>`select c.id from categories c join category_groups g on g.household_id = c.household_id
      and g.id = c.group_id where c.household_id = ${h} and not g.is_income order by c.id`.execute(db)
  ).rows.map((r) => r.id)
  const account = (
    await db
      .selectFrom('accounts')
      .select('id')
      .where('household_id', '=', h)
      .where('name', '=', 'Checking')
      .executeTakeFirstOrThrow()
  ).id
  const category = (
    await db
      .selectFrom('categories')
      .select('id')
      .where('household_id', '=', h)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
  ).id
  const snapshot = await runQuery(db, operations.budgets.get, { month: MONTH }, ctx)
  console.log(
    `[${name}] ${MONTH}: ready to assign ${snapshot.readyToAssignCents}, ${snapshot.groups.length} groups`,
  )
  // The raw statements of a snapshot that starts from last month's closing.
  const monthReads = async () => {
    await sql`select month, state from budget_closings where household_id = ${h} and month < ${MONTH}
      order by month desc limit 1`.execute(db)
    await activityQuery(h, 'EUR', MONTH, sql``, PREVIOUS).execute(db)
    await sql`select month, category_id, assigned_cents from budget_cells
      where household_id = ${h} and month > ${PREVIOUS} and assigned_cents <> 0`.execute(db)
  }
  const forget = () => sql`delete from budget_closings where household_id = ${h}`.execute(db)
  return [
    {
      // The closings of the months before are kept (an earlier read kept them; a write in the
      // month, the usual one, forgets only the month and later): the month alone is read.
      store: name,
      measure: `month snapshot ${MONTH} (100k rows, 150 categories, 36 months)`,
      engine: await time(() => runQuery(db, operations.budgets.get, { month: MONTH }, ctx)),
      baseline: await time(monthReads),
      targetMs: snapshotTarget,
    },
    {
      // No closing kept (a write dated in the first month forgets them all): the whole history is
      // rolled, and the closings of the 35 months before are kept again.
      store: name,
      measure: 'month snapshot with no closing kept (after a write in the first month)',
      engine: await time(() => runQuery(db, operations.budgets.get, { month: MONTH }, ctx), {
        before: forget,
      }),
      baseline: await time(async () => {
        await activityQuery(h, 'EUR', MONTH).execute(db)
        await sql`select month, category_id, assigned_cents from budget_cells where household_id = ${h} and assigned_cents <> 0`.execute(
          db,
        )
      }),
    },
    {
      store: name,
      measure: 'one category of the month',
      engine: await time(() =>
        runQuery(db, operations.budgets.getCategory, { month: MONTH, categoryId: category }, ctx),
      ),
      baseline: await time(monthReads),
    },
    {
      store: name,
      measure: 'assign one category (with its history entry)',
      engine: await time(() =>
        runMutation(
          db,
          operations.budgets.assign,
          {
            month: MONTH,
            categoryId: category,
            assignedCents: Math.floor(Math.random() * 1e6),
            historyId: ulid(),
          },
          { ...ctx, now: new Date() },
        ),
      ),
      baseline: await time(() =>
        sql`insert into budget_cells (household_id, id, month, category_id, assigned_cents)
            values (${h}, ${`${MONTH}:${category}`}, ${MONTH}, ${category}, ${Math.floor(Math.random() * 1e6)})
            on conflict (household_id, id) do update set assigned_cents = excluded.assigned_cents`.execute(
          db,
        ),
      ),
      targetMs: name === 'pglite' ? TARGETS.assign : undefined,
    },
    {
      store: name,
      measure: 'bulk create, 500 categorized rows over 12 months (kept sums, overrun check)',
      engine: await time(
        () =>
          runMutation(
            db,
            operations.transactions.bulkCreate,
            { transactions: rows(account, categories) },
            ctx,
          ),
        { runs: 10, warmup: 1 },
      ),
      baseline: await time(
        () =>
          db.transaction().execute(async (tx) => {
            await sql`set local session_replication_role = replica`.execute(tx)
            for (const r of rows(account, categories))
              await sql`insert into transactions (household_id, id, account_id, date, amount_cents, category_id, status, source)
                values (${h}, ${r.id}, ${r.accountId}, ${r.date}, ${r.amountCents}, ${r.categoryId}, 'pending', 'manual')`.execute(
                tx,
              )
          }),
        { runs: 10, warmup: 1 },
      ),
    },
  ]
}

/** 500 new rows on one account, spread over the last 12 months and over the categories. */
function rows(accountId: string, categories: readonly string[]) {
  return Array.from({ length: 500 }, (_, i) => ({
    id: ulid(),
    accountId,
    date: `${2025 + (i % 12 > 10 ? 1 : 0)}-${String((i % 12) + 1).padStart(2, '0')}-15`,
    amountCents: -(100 + ((i * 37) % 5000)),
    categoryId: categories[(i * 7) % categories.length]!,
  }))
}

await main()
