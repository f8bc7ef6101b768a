import {
  encodeCursor,
  type HouseholdContext,
  operations,
  runMutation,
  runQuery,
  type Store,
} from '@hearth/engine'
import { sql } from 'kysely'
import { monotonicFactory } from 'ulidx'
import { benchArgs, openBenchStore } from './bench-store.ts'
import { findSeeded, type SeededHousehold } from './household-seed.ts'
import { type Comparison, printReport, time } from './stats.ts'

/** Targets from the ledger issue, for PostgreSQL. */
const TARGETS = { page: 5, bulk: 200, accounts: 10 }

/**
 * `npm run bench [-- --store pglite|postgres|both]`: the ledger's hot paths on the seeded
 * 100k household, each beside the raw SQL of the same query measured in the same run.
 */
async function main(): Promise<void> {
  const { stores } = benchArgs()
  const rows: Comparison[] = []
  for (const name of stores) {
    const store = await openBenchStore(name)
    try {
      const seeded = await findSeeded(store)
      if (!seeded)
        throw new Error(`[${name}] not seeded: run \`npm run bench:seed -- --store ${name}\` first`)
      const total = await store.db
        .selectFrom('transactions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('household_id', '=', seeded.ctx.householdId)
        .executeTakeFirstOrThrow()
      console.log(`[${name}] ${total.n} transactions in the bench household`)
      rows.push(...(await measure(name, store, seeded)))
    } finally {
      await store.close()
    }
  }
  printReport(rows)
}

async function measure(name: string, store: Store, seeded: SeededHousehold): Promise<Comparison[]> {
  const { db } = store
  const ctx: HouseholdContext = { ...seeded.ctx, now: new Date() }
  const h = ctx.householdId
  const account = seeded.accountIds[0]!
  const target = (ms: number) => (name === 'postgres' ? ms : undefined)
  const out: Comparison[] = []

  out.push({
    store: name,
    measure: 'transactions list, first page (50)',
    engine: await time(() => runQuery(db, operations.transactions.list, {}, ctx)),
    baseline: await time(() =>
      sql`select * from transactions where household_id = ${h} and deleted_at is null and merged_into_id is null
        order by date desc, id desc limit 51`.execute(db),
    ),
    targetMs: target(TARGETS.page),
  })

  const filter = {
    accountId: account,
    statuses: 'cleared,reconciled',
    dateFrom: '2019-01-01',
    dateTo: '2024-12-31',
    maxAmountCents: '-500',
  }
  out.push({
    store: name,
    measure: 'transactions list, filtered page',
    engine: await time(() => runQuery(db, operations.transactions.list, filter, ctx)),
    baseline: await time(() =>
      sql`select * from transactions where household_id = ${h} and deleted_at is null and merged_into_id is null
        and account_id = ${account} and status in ('cleared', 'reconciled') and date >= '2019-01-01'::date
        and date <= '2024-12-31'::date and amount_cents <= -500
        order by date desc, id desc limit 51`.execute(db),
    ),
    targetMs: target(TARGETS.page),
  })

  const deep = await sql<{ date: string; id: string }>`
    select date, id from transactions where household_id = ${h} and deleted_at is null and merged_into_id is null
    order by date desc, id desc offset 50000 limit 1`.execute(db)
  const at = deep.rows[0]!
  const cursor = encodeCursor({ date: at.date, id: at.id })
  out.push({
    store: name,
    measure: 'transactions list, cursor page at row 50,000',
    engine: await time(() => runQuery(db, operations.transactions.list, { cursor }, ctx)),
    baseline: await time(() =>
      sql`select * from transactions where household_id = ${h} and deleted_at is null and merged_into_id is null
        and (date, id) < (${at.date}::date, ${at.id}) order by date desc, id desc limit 51`.execute(db),
    ),
    targetMs: target(TARGETS.page),
  })

  out.push({
    store: name,
    measure: 'account list with balances',
    engine: await time(() => runQuery(db, operations.accounts.list, {}, ctx)),
    baseline: await time(() =>
      sql`select * from accounts where household_id = ${h} and deleted_at is null
        order by group_name, position, id`.execute(db),
    ),
    targetMs: target(TARGETS.accounts),
  })

  // Bulk rows go to a scratch account created for this run, dated today, so the seed stays as it was.
  const id = monotonicFactory()
  const scratch = id()
  await runMutation(
    db,
    operations.accounts.create,
    { id: scratch, name: `Bench scratch ${scratch}`, type: 'cash' },
    ctx,
  )
  const rows = () =>
    Array.from({ length: 500 }, (_, i) => ({
      id: id(),
      accountId: scratch,
      date: '2026-11-20',
      amountCents: -(i + 100),
      memo: `bulk ${i}`,
      tagIds: i % 10 === 0 ? [seeded.tagIds[0]!] : undefined,
    }))
  out.push({
    store: name,
    measure: 'bulk create, 500 rows',
    engine: await time(
      () => runMutation(db, operations.transactions.bulkCreate, { transactions: rows() }, ctx),
      {
        runs: 10,
        warmup: 1,
      },
    ),
    baseline: await time(
      () =>
        db.transaction().execute(async (tx) => {
          const batch = rows()
          await tx
            .insertInto('transactions')
            .values(
              batch.map((r) => ({
                household_id: h,
                id: r.id,
                account_id: scratch,
                date: r.date,
                amount_cents: r.amountCents,
                memo: r.memo,
                status: 'pending',
                source: 'manual',
                kind: 'normal',
                created_at: ctx.now,
                updated_at: ctx.now,
              })) as never,
            )
            .execute()
        }),
      { runs: 10, warmup: 1 },
    ),
    targetMs: target(TARGETS.bulk),
  })
  // Take the scratch rows out again, so every run measures the same 100k household.
  await db.transaction().execute(async (tx) => {
    const rows = tx
      .selectFrom('transactions')
      .select('id')
      .where('household_id', '=', h)
      .where('account_id', '=', scratch)
    await tx
      .deleteFrom('transaction_tags')
      .where('household_id', '=', h)
      .where('transaction_id', 'in', rows)
      .execute()
    await tx
      .deleteFrom('transactions')
      .where('household_id', '=', h)
      .where('account_id', '=', scratch)
      .execute()
    await tx.deleteFrom('accounts').where('household_id', '=', h).where('id', '=', scratch).execute()
  })
  return out
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
