import {
  DEFAULT_FLAGS,
  deriveUlid,
  operations,
  runMutation,
  runQuery,
  seedDefaultFlags,
} from '@hearth/engine'
import { newHousehold, sharedStore } from '@hearth/test/store'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'

describe('flags', () => {
  it('seeds the default flags on a new household, with ids derived from the household id', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const { items } = await runQuery(store.db, operations.flags.list, {}, ctx)
    expect(items.map((f) => [f.name, f.position])).toEqual(DEFAULT_FLAGS.map((f, i) => [f.name, i]))
    expect(items.map((f) => f.id)).toEqual(
      DEFAULT_FLAGS.map((f) => deriveUlid(ctx.householdId, `flag:${f.key}`)),
    )
    expect(items[0]).toMatchObject({ name: 'Red', color: '#e5484d' })
  })

  it('seeds with the ids given, and seeding twice adds nothing', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    await store.db.deleteFrom('flags').where('household_id', '=', ctx.householdId).execute()
    const ids = DEFAULT_FLAGS.map(() => ulid())
    const seeded = await store.db
      .transaction()
      .execute((tx) => seedDefaultFlags(tx, ctx.householdId, ctx.now, ids))
    expect(seeded.map((f) => f.id)).toEqual(ids)
    const again = await store.db
      .transaction()
      .execute((tx) => seedDefaultFlags(tx, ctx.householdId, ctx.now, ids))
    expect(again).toEqual([])
    expect((await runQuery(store.db, operations.flags.list, {}, ctx)).items).toHaveLength(
      DEFAULT_FLAGS.length,
    )
  })

  it('creates a flag after the last one and refuses a duplicate name in any case', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const id = ulid()
    const { result } = await runMutation(
      store.db,
      operations.flags.create,
      { id, name: 'Review', color: '#123ABC' },
      ctx,
    )
    expect(result).toMatchObject({ id, name: 'Review', color: '#123abc', position: DEFAULT_FLAGS.length })
    expect(await runQuery(store.db, operations.flags.get, { id }, ctx)).toEqual(result)
    await expect(
      runMutation(store.db, operations.flags.create, { id: ulid(), name: 'red', color: '#ff0000' }, ctx),
    ).rejects.toMatchObject({ status: 409, code: 'FLAG_NAME_TAKEN' })
    await expect(
      runMutation(store.db, operations.flags.create, { id: ulid(), name: 'No colour' }, ctx),
    ).rejects.toMatchObject({ status: 400, code: 'VALIDATION_FAILED' })
  })

  it('updates and deletes flags; a deleted or foreign flag is 404', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const other = await newHousehold(store)
    const { items } = await runQuery(store.db, operations.flags.list, {}, ctx)
    const red = items[0]?.id as string
    const { result } = await runMutation(
      store.db,
      operations.flags.update,
      { id: red, name: 'Urgent', color: '#aa0000', position: 99 },
      ctx,
    )
    expect(result).toMatchObject({ id: red, name: 'Urgent', color: '#aa0000', position: 99 })
    await expect(
      runMutation(store.db, operations.flags.update, { id: red, name: 'ORANGE' }, ctx),
    ).rejects.toMatchObject({ status: 409, code: 'FLAG_NAME_TAKEN' })
    await runMutation(store.db, operations.flags.delete, { id: red }, ctx)
    const after = await runQuery(store.db, operations.flags.list, {}, ctx)
    expect(after.items.map((f) => f.name)).toEqual(['Orange', 'Yellow', 'Green', 'Blue', 'Purple'])
    await expect(runMutation(store.db, operations.flags.delete, { id: red }, ctx)).rejects.toMatchObject({
      status: 404,
    })
    const theirs = (await runQuery(store.db, operations.flags.list, {}, other)).items[0]?.id as string
    await expect(
      runMutation(store.db, operations.flags.update, { id: theirs, name: 'Mine' }, ctx),
    ).rejects.toMatchObject({
      status: 404,
    })
  })

  it('uses the transaction scopes', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const reader = { ...ctx, scopes: ['read:transactions' as const] }
    expect((await runQuery(store.db, operations.flags.list, {}, reader)).items).toHaveLength(
      DEFAULT_FLAGS.length,
    )
    await expect(
      runMutation(store.db, operations.flags.create, { id: ulid(), name: 'X', color: '#000000' }, reader),
    ).rejects.toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' })
  })
})
