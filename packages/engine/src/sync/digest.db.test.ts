import { newHousehold, sharedStore } from '@hearth/test/store'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { runMutation } from '../mutator/run.ts'
import { operations } from '../registry.ts'
import { SCOPES } from '../scopes.ts'
import { readDigest } from './digest.ts'

describe('a household digest', () => {
  it('is the same read whole or in pages of any size, and changes with any row', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const accountId = ulid()
    await runMutation(
      store.db,
      operations.accounts.create,
      { id: accountId, name: 'Cash', type: 'cash' },
      ctx,
    )
    const tagIds = [ulid(), ulid()]
    for (const [i, id] of tagIds.entries())
      await runMutation(store.db, operations.tags.create, { id, name: `T${i}` }, ctx)
    const transactions = Array.from({ length: 23 }, (_, i) => ({
      id: ulid(),
      accountId,
      date: '2026-11-01',
      amountCents: -100 - i,
      tagIds: i % 2 === 0 ? tagIds : [tagIds[0]!],
    }))
    await runMutation(store.db, operations.transactions.bulkCreate, { transactions }, ctx)
    const reader = { scopes: [...SCOPES], userId: ctx.userId, role: ctx.role }
    const whole = await readDigest(store.db, ctx.householdId, reader)
    expect(whole.tables.find((t) => t.table === 'transactions')?.rows).toBe(23)
    // A transaction's tags are rows of their own (35 here), split across pages of every size below.
    expect(whole.tables.find((t) => t.table === 'transaction_tags')?.rows).toBe(35)
    for (const pageRows of [1, 2, 5, 1000]) {
      expect(await readDigest(store.db, ctx.householdId, reader, { pageRows })).toEqual(whole)
    }
    // A narrower key sees fewer tables, the same digests of those it sees.
    const narrow = await readDigest(store.db, ctx.householdId, { scopes: ['read:households', 'read:tags'] })
    expect(narrow.tables.map((t) => t.table).sort()).toEqual(
      ['households', 'memberships', 'tags'].filter((t) => whole.tables.some((w) => w.table === t)),
    )
    for (const t of narrow.tables) expect(t).toEqual(whole.tables.find((w) => w.table === t.table))

    await runMutation(
      store.db,
      operations.transactions.update,
      { id: transactions[3]!.id, memo: 'changed' },
      ctx,
    )
    const after = await readDigest(store.db, ctx.householdId, reader, { pageRows: 4 })
    const changed = after.tables.filter((t) => {
      const was = whole.tables.find((w) => w.table === t.table)
      return was?.hash !== t.hash || was.rows !== t.rows
    })
    expect(changed.map((t) => t.table)).toContain('transactions')
    expect(after.version).toBeGreaterThan(whole.version)
  })
})
