import { type HouseholdContext, operations, runMutation, SCOPES, type Store } from '@hearth/engine'
import { sql } from 'kysely'
import { monotonicFactory } from 'ulidx'
import { prng } from './stats.ts'

/** The name that marks the seeded household, so a second seed run finds it instead of adding another. */
export const BENCH_HOUSEHOLD = 'Bench household (100k)'

/** Size of the seeded household, per the ledger issue. */
export const SEED = { transactions: 100_000, years: 10, accounts: 12, categories: 60, payees: 400, tags: 8 }

const ACCOUNTS: {
  name: string
  type: 'cash' | 'credit' | 'loan' | 'tracking'
  subtype?: string
  weight: number
}[] = [
  { name: 'Joint checking', type: 'cash', subtype: 'checking', weight: 30 },
  { name: 'Ada checking', type: 'cash', subtype: 'checking', weight: 12 },
  { name: 'Bo checking', type: 'cash', subtype: 'checking', weight: 12 },
  { name: 'Savings', type: 'cash', subtype: 'savings', weight: 2 },
  { name: 'Wallet', type: 'cash', subtype: 'wallet', weight: 6 },
  { name: 'Visa', type: 'credit', weight: 20 },
  { name: 'Mastercard', type: 'credit', weight: 10 },
  { name: 'Store card', type: 'credit', weight: 3 },
  { name: 'Mortgage', type: 'loan', weight: 1 },
  { name: 'Car loan', type: 'loan', weight: 1 },
  { name: 'Brokerage', type: 'tracking', weight: 2 },
  { name: 'Pension', type: 'tracking', weight: 1 },
]

const GROUPS = ['Bills', 'Everyday', 'Transport', 'Home', 'Fun', 'Savings goals']

/** Reports progress of a long seed, one line per step. */
export type Progress = (message: string) => void

/** What the measurements need to know about the seeded household. */
export interface SeededHousehold {
  ctx: HouseholdContext
  accountIds: string[]
  tagIds: string[]
}

/** Finds the seeded household in this store, if a previous run built it. */
export async function findSeeded(store: Store): Promise<SeededHousehold | null> {
  const household = await store.db
    .selectFrom('households as h')
    .innerJoin('memberships as m', 'm.household_id', 'h.id')
    .select(['h.id', 'm.user_id'])
    .where('h.name', '=', BENCH_HOUSEHOLD)
    .executeTakeFirst()
  if (!household) return null
  const accounts = await store.db
    .selectFrom('accounts')
    .select('id')
    .where('household_id', '=', household.id)
    .orderBy('id')
    .execute()
  const tags = await store.db
    .selectFrom('tags')
    .select('id')
    .where('household_id', '=', household.id)
    .execute()
  return {
    ctx: {
      userId: household.user_id,
      scopes: [...SCOPES],
      now: new Date(),
      householdId: household.id,
      role: 'owner',
    },
    accountIds: accounts.map((a) => a.id),
    tagIds: tags.map((t) => t.id),
  }
}

/**
 * Builds a realistic household through the engine's own mutators: 12 accounts, 60 categories,
 * 400 payees, tags, and 100,000 transactions over ten years with splits, tags, flags and
 * transfers. Deterministic: the same PRNG seed builds the same rows. `size` builds a smaller one
 * (the web bench's 20,000 rows) with the same shape, under another name than BENCH_HOUSEHOLD.
 */
export async function seedHousehold(
  store: Store,
  progress: Progress,
  size: { transactions: number; name: string } = { transactions: SEED.transactions, name: BENCH_HOUSEHOLD },
): Promise<SeededHousehold> {
  const random = prng(20261122)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
  const start = Date.UTC(2016, 10, 22)
  const id = monotonicFactory(() => random())
  const userId = id(start)
  const householdId = id(start)
  const now = new Date(Date.UTC(2026, 10, 22))
  const actor = { userId, scopes: [...SCOPES], now }
  const ctx: HouseholdContext = { ...actor, householdId, role: 'owner' }
  const run = (mutator: any, args: unknown) => runMutation(store.db, mutator, args, ctx)

  await runMutation(store.db, operations.users.create, { id: userId, name: 'Bench owner' }, actor)
  await run(operations.households.create, { id: householdId, name: size.name, baseCurrency: 'EUR' })

  const categoryIds: string[] = []
  for (const group of GROUPS) {
    const groupId = id(start)
    await run(operations.categoryGroups.create, { id: groupId, name: group })
    for (let i = 0; i < SEED.categories / GROUPS.length; i++) {
      const categoryId = id(start)
      await run(operations.categories.create, { id: categoryId, groupId, name: `${group} ${i + 1}` })
      categoryIds.push(categoryId)
    }
  }
  const payeeIds: string[] = []
  for (let i = 0; i < SEED.payees; i++) {
    const payeeId = id(start)
    await run(operations.payees.create, {
      id: payeeId,
      name: `Payee ${i + 1} ${pick(['Market', 'Shop', 'Cafe', 'Online', 'Services'])}`,
    })
    payeeIds.push(payeeId)
  }
  const tagIds: string[] = []
  for (const name of ['vacation', 'kids', 'work', 'gift', 'health', 'car', 'tax', 'shared'].slice(
    0,
    SEED.tags,
  )) {
    const tagId = id(start)
    await run(operations.tags.create, { id: tagId, name })
    tagIds.push(tagId)
  }
  const flagIds = (
    await store.db.selectFrom('flags').select('id').where('household_id', '=', householdId).execute()
  ).map((f) => f.id)
  progress(`catalog: ${categoryIds.length} categories, ${payeeIds.length} payees, ${tagIds.length} tags`)

  const accountIds: string[] = []
  for (const account of ACCOUNTS) {
    const accountId = id(start)
    await run(operations.accounts.create, {
      id: accountId,
      name: account.name,
      type: account.type,
      subtype: account.subtype,
      bankFed: account.type === 'cash' || account.type === 'credit',
      openingBalanceCents: account.type === 'loan' ? -25_000_000 : Math.floor(random() * 500_000),
      openingBalanceDate: '2016-11-22',
    })
    accountIds.push(accountId)
  }
  const weighted = ACCOUNTS.flatMap((a, i) => Array<string>(a.weight).fill(accountIds[i]!))
  const onBudget = accountIds.slice(0, 8)
  progress(`accounts: ${accountIds.length}`)

  // Rows spread evenly over ten years; about 2% are transfers (two legs each).
  const days = SEED.years * 365
  const transfers = Math.round(size.transactions * 0.01)
  const plain = size.transactions - ACCOUNTS.length - transfers * 2
  const batch: Record<string, unknown>[] = []
  let written = 0
  const flush = async () => {
    if (batch.length === 0) return
    await run(operations.transactions.bulkCreate, { transactions: batch.splice(0) })
  }
  const began = performance.now()
  for (let n = 0; n < plain; n++) {
    const dayMs = start + Math.floor((n / plain) * days) * 86_400_000
    const date = new Date(dayMs).toISOString().slice(0, 10)
    const income = random() < 0.06
    const amount = income ? Math.floor(random() * 400_000) + 50_000 : -(Math.floor(random() * 20_000) + 100)
    const old = dayMs < now.getTime() - 45 * 86_400_000
    const row: Record<string, unknown> = {
      id: id(dayMs),
      accountId: pick(weighted),
      date,
      amountCents: amount,
      payeeId: pick(payeeIds),
      status: old || random() < 0.5 ? 'cleared' : 'pending',
      memo: random() < 0.3 ? `memo ${n % 997}` : null,
    }
    if (!income && random() < 0.05) {
      const first = -Math.floor(random() * -amount)
      row.splits = [
        { amountCents: first, categoryId: pick(categoryIds) },
        { amountCents: amount - first, categoryId: pick(categoryIds) },
      ]
    } else if (random() < 0.93) {
      row.categoryId = pick(categoryIds)
    }
    if (random() < 0.1) row.tagIds = [pick(tagIds)]
    if (random() < 0.03) row.flagIds = [pick(flagIds)]
    batch.push(row)
    if (batch.length === 500) {
      await flush()
      written += 500
      // Keep planner statistics current as the tables grow, as autovacuum would; PGlite has no
      // autovacuum, and the PostgreSQL on this machine runs with it off.
      if (written % 20_000 === 0) await sql`analyze`.execute(store.db)
      if (written % 10_000 === 0) {
        const rate = written / ((performance.now() - began) / 1000)
        progress(`transactions: ${written}/${plain} (${Math.round(rate)} rows/s)`)
      }
    }
  }
  await flush()
  progress(`transactions: ${plain}/${plain}`)
  for (let n = 0; n < transfers; n++) {
    const dayMs = start + Math.floor((n / transfers) * days) * 86_400_000
    const from = pick(onBudget)
    let to = pick(accountIds)
    if (to === from) to = accountIds[(accountIds.indexOf(from) + 1) % accountIds.length]!
    await run(operations.transactions.transfer, {
      fromAccountId: from,
      toAccountId: to,
      amountCents: Math.floor(random() * 100_000) + 1000,
      date: new Date(dayMs).toISOString().slice(0, 10),
      status: 'cleared',
      fromTransactionId: id(dayMs),
      toTransactionId: id(dayMs),
    })
    if ((n + 1) % 250 === 0) progress(`transfers: ${n + 1}/${transfers}`)
  }
  await sql`vacuum analyze`.execute(store.db)
  return { ctx, accountIds, tagIds }
}
