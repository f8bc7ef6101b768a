import {
  findOrCreatePayeeByName,
  type HouseholdContext,
  operations,
  runMutation,
  runQuery,
  type Store,
} from '@hearth/engine'
import { newHousehold, sharedStore } from '@hearth/test/store'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'

async function categoryIn(store: Store, ctx: HouseholdContext): Promise<string> {
  const groupId = ulid()
  const id = ulid()
  await runMutation(store.db, operations.categoryGroups.create, { id: groupId, name: `G ${groupId}` }, ctx)
  await runMutation(store.db, operations.categories.create, { id, groupId, name: 'Food' }, ctx)
  return id
}

describe('payees', () => {
  it('creates a payee with its normalized name and default category, and reads it back', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const categoryId = await categoryIn(store, ctx)
    const id = ulid()
    const { result } = await runMutation(
      store.db,
      operations.payees.create,
      { id, name: '  Café  Crème ', categoryId },
      ctx,
    )
    expect(result).toMatchObject({ id, name: 'Café  Crème', normalizedName: 'cafe creme', categoryId })
    expect(await runQuery(store.db, operations.payees.get, { id }, ctx)).toEqual(result)
  })

  it('refuses a name whose normalized form a live payee holds, and frees it once that payee is deleted', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const first = ulid()
    await runMutation(store.db, operations.payees.create, { id: first, name: "McDonald's" }, ctx)
    await expect(
      runMutation(store.db, operations.payees.create, { id: ulid(), name: 'MCDONALDS' }, ctx),
    ).rejects.toMatchObject({ status: 409, code: 'PAYEE_NAME_TAKEN', extra: { payeeId: first } })
    await runMutation(store.db, operations.payees.delete, { id: first }, ctx)
    const { result } = await runMutation(
      store.db,
      operations.payees.create,
      { id: ulid(), name: 'McDonalds' },
      ctx,
    )
    expect(result.normalizedName).toBe('mcdonalds')
  })

  it('recomputes the normalized name on rename and sets or clears the default category', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const categoryId = await categoryIn(store, ctx)
    const id = ulid()
    await runMutation(store.db, operations.payees.create, { id, name: 'Amazon' }, ctx)
    const { result } = await runMutation(
      store.db,
      operations.payees.update,
      { id, name: 'AMAZON.COM Marketplace', categoryId },
      ctx,
    )
    expect(result).toMatchObject({
      name: 'AMAZON.COM Marketplace',
      normalizedName: 'amazon com marketplace',
      categoryId,
    })
    const { result: cleared } = await runMutation(
      store.db,
      operations.payees.update,
      { id, categoryId: null },
      ctx,
    )
    expect(cleared.categoryId).toBeNull()
    const { result: recased } = await runMutation(
      store.db,
      operations.payees.update,
      { id, name: 'amazon.com marketplace' },
      ctx,
    )
    expect(recased.name).toBe('amazon.com marketplace')
  })

  it('answers 404 for a deleted or foreign default category and for unknown payees', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const other = await newHousehold(store)
    const theirs = await categoryIn(store, other)
    const gone = await categoryIn(store, ctx)
    await runMutation(store.db, operations.categories.delete, { id: gone }, ctx)
    for (const categoryId of [theirs, gone]) {
      await expect(
        runMutation(store.db, operations.payees.create, { id: ulid(), name: 'X', categoryId }, ctx),
      ).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' })
    }
    const id = ulid()
    await runMutation(store.db, operations.payees.create, { id, name: 'Y' }, ctx)
    await expect(
      runMutation(store.db, operations.payees.update, { id, categoryId: theirs }, ctx),
    ).rejects.toMatchObject({
      status: 404,
    })
    await expect(runQuery(store.db, operations.payees.get, { id: ulid() }, ctx)).rejects.toMatchObject({
      status: 404,
    })
    await expect(runMutation(store.db, operations.payees.delete, { id: 'nope' }, ctx)).rejects.toMatchObject({
      status: 404,
    })
  })

  it('lists live payees alphabetically by normalized name and hides deleted ones', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const gone = ulid()
    for (const [id, name] of [
      [ulid(), 'zeta'],
      [ulid(), 'Éclair'],
      [gone, 'Gone'],
      [ulid(), 'apple'],
    ] as const) {
      await runMutation(store.db, operations.payees.create, { id, name }, ctx)
    }
    await runMutation(store.db, operations.payees.delete, { id: gone }, ctx)
    await expect(runQuery(store.db, operations.payees.get, { id: gone }, ctx)).rejects.toMatchObject({
      status: 404,
    })
    const { items } = await runQuery(store.db, operations.payees.list, {}, ctx)
    expect(items.map((p) => p.name)).toEqual(['apple', 'Éclair', 'zeta'])
  })

  it('emits created, updated and deleted events', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const id = ulid()
    await runMutation(store.db, operations.payees.create, { id, name: 'Shop' }, ctx)
    await runMutation(store.db, operations.payees.update, { id, name: 'Store' }, ctx)
    await runMutation(store.db, operations.payees.delete, { id }, ctx)
    const rows = await store.db
      .selectFrom('outbox')
      .select('payload')
      .where('household_id', '=', ctx.householdId)
      .orderBy('id')
      .execute()
    const events = rows.map((r) => r.payload).filter((p) => String(p.type).startsWith('payee.'))
    expect(events.map((e) => e.type)).toEqual(['payee.created', 'payee.updated', 'payee.deleted'])
    expect(events[1]?.data).toMatchObject({ payee: { id, name: 'Store' }, changes: ['name'] })
    expect(events[2]?.data).toEqual({ id })
  })
})

describe('findOrCreatePayeeByName', () => {
  it('finds a live payee by normalized name, or creates one with the given id', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const existing = ulid()
    await runMutation(store.db, operations.payees.create, { id: existing, name: 'Whole Foods' }, ctx)
    const fresh = ulid()
    const [found, created, again] = await store.db
      .transaction()
      .execute(async (tx) => [
        await findOrCreatePayeeByName(tx, ctx.householdId, 'WHOLE-FOODS ', ulid(), ctx.now),
        await findOrCreatePayeeByName(tx, ctx.householdId, ' Trader Joe’s ', fresh, ctx.now),
        await findOrCreatePayeeByName(tx, ctx.householdId, 'trader joes', ulid(), ctx.now),
      ])
    expect(found).toMatchObject({ created: false, payee: { id: existing, name: 'Whole Foods' } })
    expect(created).toMatchObject({
      created: true,
      payee: { id: fresh, name: 'Trader Joe’s', normalizedName: 'trader joes' },
    })
    expect(again).toMatchObject({ created: false, payee: { id: fresh } })
  })

  it('ignores deleted payees and payees of other households', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const other = await newHousehold(store)
    const gone = ulid()
    await runMutation(store.db, operations.payees.create, { id: gone, name: 'Deli' }, ctx)
    await runMutation(store.db, operations.payees.delete, { id: gone }, ctx)
    await runMutation(store.db, operations.payees.create, { id: ulid(), name: 'Deli' }, other)
    const fresh = ulid()
    const result = await store.db
      .transaction()
      .execute((tx) => findOrCreatePayeeByName(tx, ctx.householdId, 'deli', fresh, ctx.now))
    expect(result).toMatchObject({ created: true, payee: { id: fresh } })
  })

  it('refuses a blank name with 400', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    await expect(
      store.db
        .transaction()
        .execute((tx) => findOrCreatePayeeByName(tx, ctx.householdId, '   ', ulid(), ctx.now)),
    ).rejects.toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      errors: [expect.objectContaining({ path: 'payeeName' })],
    })
  })
})
