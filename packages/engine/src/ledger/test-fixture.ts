/** Helpers for the ledger's database tests: a household with a short way to call its operations. */
import {
  type Account,
  type HouseholdContext,
  type Mutator,
  operations,
  type Query,
  runMutation,
  runQuery,
  type Store,
  type Transaction,
} from '@hearth/engine'
import { newHousehold, sharedStore } from '@hearth/test/store'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { expect } from 'vitest'
import type { ZodType } from 'zod'

/** A fresh household plus shortcuts bound to it. */
export interface LedgerHousehold {
  store: Store
  ctx: HouseholdContext
  /** The last outbox id written while the household was set up; events after it are the test's. */
  outboxStart: number
  run<S extends ZodType, R>(
    mutator: Mutator<S, R, HouseholdContext>,
    args: unknown,
    ctx?: Partial<HouseholdContext>,
  ): Promise<R>
  read<S extends ZodType, R>(
    query: Query<S, R, HouseholdContext>,
    args: unknown,
    ctx?: Partial<HouseholdContext>,
  ): Promise<R>
}

export async function ledgerHousehold(
  options: { baseCurrency?: string; timeZone?: string } = {},
): Promise<LedgerHousehold> {
  const store = await sharedStore()
  const ctx = await newHousehold(store, options)
  const { last } = await store.db
    .selectFrom('outbox')
    .select((eb) => eb.fn.coalesce(eb.fn.max('id'), eb.lit(0)).as('last'))
    .where('household_id', '=', ctx.householdId)
    .executeTakeFirstOrThrow()
  return {
    store,
    ctx,
    outboxStart: Number(last),
    async run(mutator, args, override) {
      return (await runMutation(store.db, mutator, args, { ...ctx, ...override })).result
    },
    read(query, args, override) {
      return runQuery(store.db, query, args, { ...ctx, ...override })
    },
  }
}

/** An open account; `openingBalanceCents` defaults to none. */
export function newAccount(h: LedgerHousehold, args: Record<string, unknown> = {}): Promise<Account> {
  return h.run(operations.accounts.create, { id: ulid(), name: 'Checking', type: 'cash', ...args })
}

/** A pending manual row of -10.00 dated 2024-03-10 unless told otherwise. */
export function newTransaction(
  h: LedgerHousehold,
  accountId: string,
  args: Record<string, unknown> = {},
): Promise<Transaction> {
  return h.run(operations.transactions.create, {
    id: ulid(),
    accountId,
    date: '2024-03-10',
    amountCents: -1000,
    ...args,
  })
}

/** A category in a fresh group. */
export async function newCategory(h: LedgerHousehold, name = 'Groceries'): Promise<string> {
  const groupId = ulid()
  const id = ulid()
  await h.run(operations.categoryGroups.create, { id: groupId, name: `${name} group` })
  await h.run(operations.categories.create, { id, groupId, name })
  return id
}

export async function newTag(h: LedgerHousehold, name: string): Promise<string> {
  const id = ulid()
  await h.run(operations.tags.create, { id, name })
  return id
}

export async function newFlag(h: LedgerHousehold, name: string): Promise<string> {
  const id = ulid()
  await h.run(operations.flags.create, { id, name, color: '#ff0000' })
  return id
}

export async function newPayee(h: LedgerHousehold, name: string): Promise<string> {
  const id = ulid()
  await h.run(operations.payees.create, { id, name })
  return id
}

/** Checks every account of the household: maintained balances equal the sums of their live rows. */
export async function expectBalancesExact(h: LedgerHousehold): Promise<void> {
  const { rows } = await sql<{
    id: string
    balance: number
    cleared: number
    total: number
    cleared_total: number
  }>`
    select a.id, a.balance_cents as balance, a.cleared_balance_cents as cleared,
      coalesce((select sum(t.amount_cents) from transactions t
        where t.household_id = a.household_id and t.account_id = a.id
          and t.deleted_at is null and t.merged_into_id is null), 0)::bigint as total,
      coalesce((select sum(t.amount_cents) from transactions t
        where t.household_id = a.household_id and t.account_id = a.id and t.status <> 'pending'
          and t.deleted_at is null and t.merged_into_id is null), 0)::bigint as cleared_total
    from accounts a where a.household_id = ${h.ctx.householdId}`.execute(h.store.db)
  for (const row of rows) {
    expect({ id: row.id, balance: row.balance, cleared: row.cleared }).toEqual({
      id: row.id,
      balance: row.total,
      cleared: row.cleared_total,
    })
  }
}

/** The events the household's mutations queued, oldest first. */
export async function outboxEvents(
  h: LedgerHousehold,
): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const rows = await h.store.db
    .selectFrom('outbox')
    .select('payload')
    .where('household_id', '=', h.ctx.householdId)
    .where('topic', '=', 'event')
    .where('id', '>', h.outboxStart)
    .orderBy('id')
    .execute()
  return rows.map((r) => r.payload as { type: string; data: Record<string, unknown> })
}
