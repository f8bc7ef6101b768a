import { type HouseholdContext, operations, runMutation, SCOPES, type Store } from '@hearth/engine'
import { sql } from 'kysely'
import { monotonicFactory } from 'ulidx'
import { benchArgs, openScratchStore } from './bench-store.ts'
import { type Comparison, printReport, prng, type Timing, time } from './stats.ts'

/** Targets from the rules issue, for PostgreSQL. */
const TARGETS = { bulk: 300, applyAll: 10_000 }
const RULES = 200
const PAYEES = 400
const CATEGORIES = 60
const BULK = 500
const LEDGER = 100_000

const WORDS = ['market', 'shop', 'cafe', 'online', 'services', 'fuel', 'pharmacy', 'bakery', 'cinema', 'taxi']

/**
 * `npm run bench:rules [-- --store pglite|postgres|both]`: a bulk import of 500 rows into a
 * household with 200 enabled rules, beside the raw SQL insert of the same rows; and apply-all
 * over 100,000 rows, beside the raw SQL update writing the same changes. Each store is built
 * fresh (a scratch PostgreSQL database, dropped at the end, or a temporary PGlite folder).
 */
async function main(): Promise<void> {
  const { stores } = benchArgs()
  const rows: Comparison[] = []
  for (const name of stores) {
    const { store, drop } = await openScratchStore(name, 'rules')
    try {
      rows.push(...(await measure(name, store)))
    } finally {
      await store.close()
      await drop()
    }
  }
  printReport(rows)
}

interface Household {
  ctx: HouseholdContext
  account: string
  categories: string[]
  payees: { id: string; name: string }[]
  tag: string
}

async function household(store: Store): Promise<Household> {
  const random = prng(12)
  const id = monotonicFactory(() => random())
  const now = new Date()
  const userId = id()
  const householdId = id()
  const actor = { userId, scopes: [...SCOPES], now }
  const ctx: HouseholdContext = { ...actor, householdId, role: 'owner' }
  const run = (mutator: any, args: unknown) => runMutation(store.db, mutator, args, ctx)
  await runMutation(store.db, operations.users.create, { id: userId, name: 'Bench owner' }, actor)
  await run(operations.households.create, { id: householdId, name: 'Rules bench', baseCurrency: 'EUR' })
  const group = id()
  await run(operations.categoryGroups.create, { id: group, name: 'Everyday' })
  const categories: string[] = []
  for (let i = 0; i < CATEGORIES; i++) {
    const category = id()
    await run(operations.categories.create, { id: category, groupId: group, name: `Category ${i + 1}` })
    categories.push(category)
  }
  const payees: { id: string; name: string }[] = []
  for (let i = 0; i < PAYEES; i++) {
    const payee = { id: id(), name: `${WORDS[i % WORDS.length]} ${i + 1} ${WORDS[(i * 7) % WORDS.length]}` }
    await run(operations.payees.create, payee)
    payees.push(payee)
  }
  const tag = id()
  await run(operations.tags.create, { id: tag, name: 'ruled' })
  const account = id()
  await run(operations.accounts.create, { id: account, name: 'Checking', type: 'cash' })
  return { ctx, account, categories, payees, tag }
}

/**
 * 200 rules of the kinds households write: payee text contains (100), payee is one of (50),
 * imported payee is (30), and 20 that no index can key (an amount or a memo pattern, with any),
 * all enabled, in 20 priority bands.
 */
async function addRules(store: Store, h: Household): Promise<void> {
  const random = prng(34)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
  const id = monotonicFactory(() => random())
  for (let i = 0; i < RULES; i++) {
    let predicate: unknown
    if (i < 100) {
      const payee = pick(h.payees)
      predicate = {
        combinator: 'all',
        conditions: [
          { field: 'payee_name', op: 'contains', value: payee.name.split(' ').slice(0, 2).join(' ') },
        ],
      }
    } else if (i < 150) {
      predicate = {
        combinator: 'all',
        conditions: [{ field: 'payee_id', op: 'oneOf', value: [pick(h.payees).id, pick(h.payees).id] }],
      }
    } else if (i < 180) {
      predicate = {
        combinator: 'all',
        conditions: [{ field: 'imported_payee', op: 'is', value: pick(h.payees).name.toUpperCase() }],
      }
    } else {
      predicate = {
        combinator: 'any',
        conditions: [
          { field: 'outflow', op: 'approx', value: Math.floor(random() * 20_000) + 100 },
          { field: 'memo', op: 'matches', value: `^ref ${i}\\d*$` },
        ],
      }
    }
    const action =
      i % 5 === 0
        ? { setCategoryId: pick(h.categories), addTagIds: [h.tag] }
        : { setCategoryId: pick(h.categories) }
    await runMutation(
      store.db,
      operations.rules.create,
      { id: id(), name: `Rule ${i + 1}`, predicate, action, priority: i % 20 },
      h.ctx,
    )
  }
}

async function measure(name: string, store: Store): Promise<Comparison[]> {
  const h = await household(store)
  const { db } = store
  const target = (ms: number) => (name === 'postgres' ? ms : undefined)
  const out: Comparison[] = []
  const random = prng(56)
  const id = monotonicFactory(() => random())
  let batchNo = 0
  const importRows = () => {
    batchNo++
    return Array.from({ length: BULK }, (_, i) => {
      const payee = h.payees[Math.floor(random() * h.payees.length)]!
      return {
        id: id(),
        accountId: h.account,
        date: '2026-11-20',
        amountCents: -(Math.floor(random() * 20_000) + 100),
        payeeName: payee.name,
        memo: `ref ${i}`,
        importedId: `bench-${batchNo}-${i}`,
      }
    })
  }
  const rawInsert = () =>
    db.transaction().execute(async (tx) => {
      const payees = await tx
        .selectFrom('payees')
        .select(['id', 'name'])
        .where('household_id', '=', h.ctx.householdId)
        .execute()
      const byName = new Map(payees.map((p) => [p.name, p.id]))
      await tx
        .insertInto('transactions')
        .values(
          importRows().map((r) => ({
            household_id: h.ctx.householdId,
            id: r.id,
            account_id: r.accountId,
            date: r.date,
            amount_cents: r.amountCents,
            payee_id: byName.get(r.payeeName) ?? null,
            memo: r.memo,
            status: 'cleared',
            source: 'imported',
            kind: 'normal',
            imported_id: r.importedId,
            created_at: h.ctx.now,
            updated_at: h.ctx.now,
          })) as never,
        )
        .execute()
    })
  const bulk = () =>
    runMutation(
      db,
      operations.transactions.bulkCreate,
      { transactions: importRows() },
      { ...h.ctx, now: new Date() },
    )

  const noRules = await time(bulk, { runs: 10, warmup: 1 })
  const rawNoRules = await time(rawInsert, { runs: 10, warmup: 1 })
  out.push({ store: name, measure: 'bulk import 500 rows, no rules', engine: noRules, baseline: rawNoRules })
  await addRules(store, h)
  const withRules = await time(bulk, { runs: 10, warmup: 1 })
  const raw = await time(rawInsert, { runs: 10, warmup: 1 })
  out.push({
    store: name,
    measure: `bulk import 500 rows, ${RULES} enabled rules`,
    engine: withRules,
    baseline: raw,
    targetMs: target(TARGETS.bulk),
  })
  const classified = await sql<{ n: number }>`
    select count(*)::int as n from rule_applications where household_id = ${h.ctx.householdId}`.execute(db)
  console.log(`[${name}] ${classified.rows[0]!.n} rule applications recorded by the imports`)

  // The ledger apply-all runs over: 100,000 rows with the imports' rows, spread over the payees,
  // uncategorized.
  const imported = await sql<{ n: number }>`
    select count(*)::int as n from transactions where household_id = ${h.ctx.householdId}`.execute(db)
  await sql`
    insert into transactions (household_id, id, account_id, date, amount_cents, payee_id, memo, status, source, kind, created_at, updated_at)
    select ${h.ctx.householdId}, 'L' || lpad(n::text, 25, '0'), ${h.account},
           date '2016-01-01' + (n % 3650), -(100 + (n * 7919) % 20000),
           (array[${sql.join(h.payees.map((p) => p.id))}])[1 + n % ${h.payees.length}],
           case when n % 3 = 0 then 'ref ' || (n % 300) else null end, 'cleared', 'imported', 'normal', now(), now()
    from generate_series(1, ${LEDGER - imported.rows[0]!.n}) as n`.execute(db)
  await sql`analyze`.execute(db)
  // Between runs the categories go back to none, and the dead rows that leaves are vacuumed, so
  // every run (engine and raw) starts from the same table; PGlite has no autovacuum, and the
  // PostgreSQL on this machine runs with it off.
  const reset = async () => {
    await sql`update transactions set category_id = null where household_id = ${h.ctx.householdId}`.execute(
      db,
    )
    await sql`vacuum analyze transactions`.execute(db)
    // The reset's gigabyte of WAL is flushed now, not by a checkpoint in the middle of the run.
    await sql`checkpoint`.execute(db)
  }
  const applyAll: number[] = []
  const rawUpdate: number[] = []
  let changed = 0
  for (let i = 0; i < 3; i++) {
    await reset()
    await sql`delete from transaction_tags where household_id = ${h.ctx.householdId}`.execute(db)
    const started = performance.now()
    const result = await runMutation(db, operations.rules.applyAll, {}, { ...h.ctx, now: new Date() })
    applyAll.push(performance.now() - started)
    changed = result.result.changedCount
    // The same writes as raw SQL: the rows and categories apply-all set, in one UPDATE per 2,000.
    const pairs = await sql<{ id: string; category_id: string }>`
      select id, category_id from transactions where household_id = ${h.ctx.householdId} and category_id is not null`.execute(
      db,
    )
    await reset()
    const began = performance.now()
    await db.transaction().execute(async (tx) => {
      for (let j = 0; j < pairs.rows.length; j += 2000) {
        const values = sql.join(
          pairs.rows.slice(j, j + 2000).map((p) => sql`(${p.id}::text, ${p.category_id}::text)`),
        )
        await sql`update transactions as t set category_id = v.category_id, updated_at = now()
          from (values ${values}) as v(id, category_id)
          where t.household_id = ${h.ctx.householdId} and t.id = v.id`.execute(tx)
      }
    })
    rawUpdate.push(performance.now() - began)
  }
  console.log(`[${name}] apply-all over ${LEDGER} rows changed ${changed}`)
  out.push({
    store: name,
    measure: `apply-all over ${LEDGER / 1000}k rows, ${RULES} rules`,
    engine: timing(applyAll),
    baseline: timing(rawUpdate),
    targetMs: target(TARGETS.applyAll),
  })
  return out
}

function timing(samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
  return { runs: sorted.length, medianMs: at(0.5), p95Ms: at(0.95), p99Ms: at(0.99) }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
