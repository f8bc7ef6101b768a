import {
  CategoryModel,
  type HouseholdContext,
  MIN_CONFIDENCE,
  operations,
  runMutation,
  SCOPES,
  type Store,
  sampleHousehold,
  trainCategoryModel,
  trainingRows,
} from '@hearth/engine'
import { monotonicFactory } from 'ulidx'
import { benchArgs, openScratchStore, type StoreName } from './bench-store.ts'
import { prng, time } from './stats.ts'

const ROWS = 3000
const BULK = 500

/**
 * `npx tsx bench/src/suggestions.ts [--store pglite|postgres|both]`: the category model's
 * accuracy on generated households (pure), then through the engine: a household with 2,400
 * categorized rows imports 500 uncategorized ones, and we count how many got the right
 * suggestion, and time the import and the model's training alone.
 */
async function main(): Promise<void> {
  console.log('Pure model, train on the older 80%, score the newer 20% (5 generated households):')
  for (let seed = 1; seed <= 5; seed++) {
    const rows = sampleHousehold(ROWS, seed)
    const cut = Math.floor(rows.length * 0.8)
    const model = new CategoryModel(rows.slice(0, cut))
    let right = 0
    let offered = 0
    let offeredRight = 0
    for (const row of rows.slice(cut)) {
      const g = model.guess(row)!
      if (g.categoryId === row.categoryId) right++
      if (g.confidence >= MIN_CONFIDENCE) {
        offered++
        if (g.categoryId === row.categoryId) offeredRight++
      }
    }
    const n = rows.length - cut
    console.log(
      `  seed ${seed}: top-1 ${pct(right / n)}, offered on ${pct(offered / n)} of rows, right ${pct(offeredRight / offered)} when offered`,
    )
  }
  const { stores } = benchArgs()
  for (const name of stores) {
    const { store, drop } = await openScratchStore(name, 'suggestions')
    try {
      await measure(name, store)
    } finally {
      await store.close()
      await drop()
    }
  }
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`

async function measure(name: StoreName, store: Store): Promise<void> {
  const random = prng(7)
  const id = monotonicFactory(() => random())
  const userId = id()
  const householdId = id()
  const actor = { userId, scopes: [...SCOPES], now: new Date() }
  const ctx: HouseholdContext = { ...actor, householdId, role: 'owner' }
  const run = async (mutator: any, args: unknown): Promise<any> =>
    (await runMutation(store.db, mutator, args, ctx)).result
  await runMutation(store.db, operations.users.create, { id: userId, name: 'Bench owner' }, actor)
  await run(operations.households.create, { id: householdId, name: 'Suggestions bench', baseCurrency: 'EUR' })
  const group = id()
  await run(operations.categoryGroups.create, { id: group, name: 'Everyday' })
  const rows = sampleHousehold(ROWS, 12)
  const categories = new Map<string, string>()
  for (const c of new Set(rows.map((r) => r.categoryId))) {
    const cid = id()
    await run(operations.categories.create, { id: cid, groupId: group, name: c })
    categories.set(c, cid)
  }
  const accounts = new Map<string, string>()
  for (const a of new Set(rows.map((r) => r.accountId))) {
    const aid = id()
    await run(operations.accounts.create, { id: aid, name: a, type: 'cash' })
    accounts.set(a, aid)
  }
  const cut = Math.floor(rows.length * 0.8)
  const input = (r: (typeof rows)[number], i: number, categorized: boolean) => ({
    id: id(),
    accountId: accounts.get(r.accountId)!,
    date: new Date(Date.UTC(2023, 0, 1) + i * 3_600_000 * 4).toISOString().slice(0, 10),
    amountCents: r.amountCents,
    payeeName: r.payeeName!,
    ...(r.memo && { memo: r.memo }),
    ...(categorized && { categoryId: categories.get(r.categoryId)! }),
  })
  for (let i = 0; i < cut; i += BULK) {
    await run(operations.transactions.bulkCreate, {
      transactions: rows.slice(i, Math.min(i + BULK, cut)).map((r, j) => input(r, i + j, true)),
    })
  }
  const test = rows.slice(cut, cut + BULK)
  const first = await run(operations.transactions.bulkCreate, {
    transactions: test.map((r, j) => input(r, cut + j, false)),
  })
  let offered = 0
  let right = 0
  first.items.forEach((t: any, i: number) => {
    if (t.suggestedCategoryId) offered++
    if (t.suggestedCategoryId === categories.get(test[i]!.categoryId)) right++
  })
  console.log(
    `${name}: ${test.length} imported rows, a suggestion on ${pct(offered / test.length)}, right on ${pct(right / test.length)} of all (${pct(right / offered)} of those offered)`,
  )
  const importTiming = await time(
    () =>
      run(operations.transactions.bulkCreate, { transactions: test.map((r, j) => input(r, cut + j, false)) }),
    { runs: 10, warmup: 2 },
  )
  const trainTiming = await time(
    () => store.db.transaction().execute((tx) => trainCategoryModel(tx as any, householdId)),
    { runs: 20, warmup: 2 },
  )
  const queryTiming = await time(
    () => store.db.transaction().execute((tx) => trainingRows(tx as any, householdId)),
    { runs: 20, warmup: 2 },
  )
  const model = await store.db.transaction().execute((tx) => trainCategoryModel(tx as any, householdId))
  const guessTiming = await time(async () => {
    for (const r of test) model.guess(r)
  })
  console.log(
    `${name}: bulk import of ${BULK} rows with rules and suggestions p50 ${importTiming.medianMs.toFixed(1)} ms (p95 ${importTiming.p95Ms.toFixed(1)}); training on ${model.size} rows p50 ${trainTiming.medianMs.toFixed(1)} ms (its query alone ${queryTiming.medianMs.toFixed(1)} ms); ${BULK} guesses p50 ${guessTiming.medianMs.toFixed(1)} ms`,
  )
}

await main()
