import {
  changesSince,
  type HouseholdContext,
  operations,
  runMutation,
  runQuery,
  type Store,
} from '@hearth/engine'
import { newHousehold, sharedStore } from '@hearth/test/store'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'

async function group(store: Store, ctx: HouseholdContext, name: string): Promise<string> {
  const id = ulid()
  await runMutation(store.db, operations.categoryGroups.create, { id, name }, ctx)
  return id
}

async function category(store: Store, ctx: HouseholdContext, groupId: string, name: string): Promise<string> {
  const id = ulid()
  await runMutation(store.db, operations.categories.create, { id, groupId, name }, ctx)
  return id
}

async function names(store: Store, ctx: HouseholdContext): Promise<string[]> {
  const { items } = await runQuery(store.db, operations.categories.list, {}, ctx)
  return items.map((c) => c.name)
}

describe('categories', () => {
  it('creates a category last in its group and reads it back', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const bills = await group(store, ctx, 'Bills')
    await category(store, ctx, bills, 'Rent')
    const id = ulid()
    const { result } = await runMutation(
      store.db,
      operations.categories.create,
      { id, groupId: bills, name: 'Power', hidden: true },
      ctx,
    )
    expect(result).toMatchObject({ id, groupId: bills, name: 'Power', position: 1, hidden: true })
    expect(await runQuery(store.db, operations.categories.get, { id }, ctx)).toEqual(result)
  })

  it('answers 404 when the group is deleted or belongs to another household', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const other = await newHousehold(store)
    const theirs = await group(store, other, 'Theirs')
    const gone = await group(store, ctx, 'Gone')
    await runMutation(store.db, operations.categoryGroups.delete, { id: gone }, ctx)
    for (const groupId of [theirs, gone, ulid()]) {
      await expect(
        runMutation(store.db, operations.categories.create, { id: ulid(), groupId, name: 'X' }, ctx),
      ).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' })
    }
  })

  it('keeps names unique within a group, ignoring case, but allows the same name in another group', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const a = await group(store, ctx, 'A')
    const b = await group(store, ctx, 'B')
    await category(store, ctx, a, 'Other')
    await expect(
      runMutation(store.db, operations.categories.create, { id: ulid(), groupId: a, name: 'OTHER' }, ctx),
    ).rejects.toMatchObject({ status: 409, code: 'CATEGORY_NAME_TAKEN' })
    await category(store, ctx, b, 'Other')
    expect(await names(store, ctx)).toEqual(['Other', 'Other'])
  })

  it('lists live categories by group position, then their own position, and filters by group', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const second = await group(store, ctx, 'Second')
    const first = await group(store, ctx, 'First')
    await runMutation(store.db, operations.categoryGroups.update, { id: first, position: 0 }, ctx)
    await runMutation(store.db, operations.categoryGroups.update, { id: second, position: 1 }, ctx)
    await category(store, ctx, second, 's1')
    const f1 = await category(store, ctx, first, 'f1')
    await category(store, ctx, first, 'f2')
    await runMutation(store.db, operations.categories.update, { id: f1, position: 9 }, ctx)
    const dropped = await category(store, ctx, first, 'dropped')
    await runMutation(store.db, operations.categories.delete, { id: dropped }, ctx)
    expect(await names(store, ctx)).toEqual(['f2', 'f1', 's1'])
    const { items } = await runQuery(store.db, operations.categories.list, { groupId: second }, ctx)
    expect(items.map((c) => c.name)).toEqual(['s1'])
  })

  it('moves a category to another group, placing it last there unless a position is given', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const a = await group(store, ctx, 'A')
    const b = await group(store, ctx, 'B')
    await category(store, ctx, b, 'b0')
    await category(store, ctx, b, 'b1')
    const moving = await category(store, ctx, a, 'moving')
    const { result } = await runMutation(
      store.db,
      operations.categories.update,
      { id: moving, groupId: b },
      ctx,
    )
    expect(result).toMatchObject({ groupId: b, position: 2 })
    const { result: placed } = await runMutation(
      store.db,
      operations.categories.update,
      { id: moving, groupId: a, position: 7, name: 'Renamed', hidden: true },
      ctx,
    )
    expect(placed).toMatchObject({ groupId: a, position: 7, name: 'Renamed', hidden: true })
  })

  it('refuses a move into a deleted group or next to a category of the same name', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const a = await group(store, ctx, 'A')
    const b = await group(store, ctx, 'B')
    const gone = await group(store, ctx, 'Gone')
    await runMutation(store.db, operations.categoryGroups.delete, { id: gone }, ctx)
    await category(store, ctx, b, 'Food')
    const food = await category(store, ctx, a, 'food')
    await expect(
      runMutation(store.db, operations.categories.update, { id: food, groupId: gone }, ctx),
    ).rejects.toMatchObject({
      status: 404,
    })
    await expect(
      runMutation(store.db, operations.categories.update, { id: food, groupId: b }, ctx),
    ).rejects.toMatchObject({
      status: 409,
      code: 'CATEGORY_NAME_TAKEN',
    })
  })

  it('soft-deletes a category, hides it from reads and clears payee defaults; a second delete is 404', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const g = await group(store, ctx, 'G')
    const id = await category(store, ctx, g, 'Coffee')
    const payee = ulid()
    await runMutation(store.db, operations.payees.create, { id: payee, name: 'Cafe', categoryId: id }, ctx)
    const { version } = await runMutation(store.db, operations.categories.delete, { id }, ctx)
    await expect(runQuery(store.db, operations.categories.get, { id }, ctx)).rejects.toMatchObject({
      status: 404,
    })
    expect(await names(store, ctx)).toEqual([])
    expect((await runQuery(store.db, operations.payees.get, { id: payee }, ctx)).categoryId).toBeNull()
    const changes = await changesSince(store.db, ctx.householdId, (version ?? 1) - 1)
    expect(changes.find((c) => c.table === 'categories')?.row).toMatchObject({
      id,
      deleted_at: expect.any(String),
    })
    await expect(runMutation(store.db, operations.categories.delete, { id }, ctx)).rejects.toMatchObject({
      status: 404,
    })
    await expect(
      runMutation(store.db, operations.categories.update, { id, name: 'Back' }, ctx),
    ).rejects.toMatchObject({
      status: 404,
    })
  })
})

describe('categories.reorder', () => {
  it('sets groups and positions of many categories at once, leaving the rest in place', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const a = await group(store, ctx, 'A')
    const b = await group(store, ctx, 'B')
    const a0 = await category(store, ctx, a, 'a0')
    const a1 = await category(store, ctx, a, 'a1')
    const b0 = await category(store, ctx, b, 'b0')
    const { result, version } = await runMutation(
      store.db,
      operations.categories.reorder,
      {
        items: [
          { id: a1, position: 0 },
          { id: a0, groupId: b, position: 0 },
          { id: b0, position: 1 },
        ],
      },
      ctx,
    )
    expect(result).toEqual({ count: 3 })
    const { items } = await runQuery(store.db, operations.categoryGroups.list, {}, ctx)
    expect(items.map((g) => [g.name, g.categories?.map((c) => [c.name, c.position])])).toEqual([
      ['A', [['a1', 0]]],
      [
        'B',
        [
          ['a0', 0],
          ['b0', 1],
        ],
      ],
    ])
    const changes = await changesSince(store.db, ctx.householdId, (version ?? 1) - 1)
    expect(changes.filter((c) => c.table === 'categories')).toHaveLength(3)
  })

  it('refuses a repeated id with 400 REORDER_DUPLICATE_ID', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const a = await group(store, ctx, 'A')
    const a0 = await category(store, ctx, a, 'a0')
    await expect(
      runMutation(
        store.db,
        operations.categories.reorder,
        {
          items: [
            { id: a0, position: 0 },
            { id: a0, position: 1 },
          ],
        },
        ctx,
      ),
    ).rejects.toMatchObject({
      status: 400,
      code: 'REORDER_DUPLICATE_ID',
      errors: [expect.objectContaining({ path: 'items.1.id' })],
    })
  })

  it('refuses unknown, deleted or foreign categories and groups with 400 REORDER_UNKNOWN_ID and changes nothing', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const other = await newHousehold(store)
    const a = await group(store, ctx, 'A')
    const a0 = await category(store, ctx, a, 'a0')
    const gone = await category(store, ctx, a, 'gone')
    await runMutation(store.db, operations.categories.delete, { id: gone }, ctx)
    const theirGroup = await group(store, other, 'Theirs')
    const theirs = await category(store, other, theirGroup, 'theirs')
    await expect(
      runMutation(
        store.db,
        operations.categories.reorder,
        {
          items: [
            { id: a0, position: 5 },
            { id: gone, position: 1 },
            { id: theirs, position: 2 },
            { id: a0.replace(/.$/, a0.endsWith('0') ? '1' : '0'), groupId: theirGroup, position: 3 },
          ],
        },
        ctx,
      ),
    ).rejects.toMatchObject({
      status: 400,
      code: 'REORDER_UNKNOWN_ID',
      errors: [
        expect.objectContaining({ path: 'items.1.id' }),
        expect.objectContaining({ path: 'items.2.id' }),
        expect.objectContaining({ path: 'items.3.id' }),
        expect.objectContaining({ path: 'items.3.groupId' }),
      ],
    })
    expect((await runQuery(store.db, operations.categories.get, { id: a0 }, ctx)).position).toBe(0)
  })

  it('refuses a reorder that would put two same-named categories in one group, changing nothing', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const a = await group(store, ctx, 'A')
    const b = await group(store, ctx, 'B')
    const a0 = await category(store, ctx, a, 'Misc')
    await category(store, ctx, b, 'misc')
    await expect(
      runMutation(
        store.db,
        operations.categories.reorder,
        { items: [{ id: a0, groupId: b, position: 0 }] },
        ctx,
      ),
    ).rejects.toMatchObject({ status: 409, code: 'CATEGORY_NAME_TAKEN' })
    expect((await runQuery(store.db, operations.categories.get, { id: a0 }, ctx)).groupId).toBe(a)
  })

  it('refuses an empty list', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    await expect(
      runMutation(store.db, operations.categories.reorder, { items: [] }, ctx),
    ).rejects.toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
    })
  })
})
