import { changesSince, operations, runMutation, runQuery, type Store } from '@hearth/engine'
import { newHousehold, sharedStore } from '@hearth/test/store'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'

async function eventTypes(store: Store, householdId: string): Promise<string[]> {
  const rows = await store.db
    .selectFrom('outbox')
    .select('payload')
    .where('household_id', '=', householdId)
    .orderBy('id')
    .execute()
  return rows.map((r) => String(r.payload.type))
}

describe('category groups', () => {
  it('creates groups after the last one and lists them in order with their categories nested', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const bills = ulid()
    const fun = ulid()
    const { result: created } = await runMutation(
      store.db,
      operations.categoryGroups.create,
      { id: bills, name: ' Bills ' },
      ctx,
    )
    expect(created).toMatchObject({
      id: bills,
      name: 'Bills',
      position: 0,
      hidden: false,
      isIncome: false,
      categories: [],
    })
    await runMutation(
      store.db,
      operations.categoryGroups.create,
      { id: fun, name: 'Fun', isIncome: false },
      ctx,
    )
    const rent = ulid()
    await runMutation(store.db, operations.categories.create, { id: rent, groupId: bills, name: 'Rent' }, ctx)

    const { items } = await runQuery(store.db, operations.categoryGroups.list, {}, ctx)
    expect(items.map((g) => [g.name, g.position, g.categories?.map((c) => c.id)])).toEqual([
      ['Bills', 0, [rent]],
      ['Fun', 1, []],
    ])
    const one = await runQuery(store.db, operations.categoryGroups.get, { id: bills }, ctx)
    expect(one.categories?.map((c) => c.name)).toEqual(['Rent'])
    expect(await eventTypes(store, ctx.householdId)).toEqual(
      expect.arrayContaining(['categoryGroup.created', 'category.created']),
    )
  })

  it('refuses a second live group with the same name in any case, but frees the name once deleted', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const id = ulid()
    await runMutation(store.db, operations.categoryGroups.create, { id, name: 'Savings' }, ctx)
    await expect(
      runMutation(store.db, operations.categoryGroups.create, { id: ulid(), name: 'SAVINGS' }, ctx),
    ).rejects.toMatchObject({ status: 409, code: 'CATEGORY_GROUP_NAME_TAKEN' })
    await runMutation(store.db, operations.categoryGroups.delete, { id }, ctx)
    const { result } = await runMutation(
      store.db,
      operations.categoryGroups.create,
      { id: ulid(), name: 'savings' },
      ctx,
    )
    expect(result.name).toBe('savings')
  })

  it('refuses an id that is already in use, even by a deleted group', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const id = ulid()
    await runMutation(store.db, operations.categoryGroups.create, { id, name: 'A' }, ctx)
    await runMutation(store.db, operations.categoryGroups.delete, { id }, ctx)
    await expect(
      runMutation(store.db, operations.categoryGroups.create, { id, name: 'B' }, ctx),
    ).rejects.toMatchObject({
      status: 409,
      code: 'ID_ALREADY_EXISTS',
    })
  })

  it('updates name, position, hidden and income kind, and keeps names unique', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const a = ulid()
    await runMutation(store.db, operations.categoryGroups.create, { id: a, name: 'Income' }, ctx)
    await runMutation(store.db, operations.categoryGroups.create, { id: ulid(), name: 'Other' }, ctx)
    const { result } = await runMutation(
      store.db,
      operations.categoryGroups.update,
      { id: a, name: 'Salary', position: 5, hidden: true, isIncome: true },
      ctx,
    )
    expect(result).toMatchObject({
      name: 'Salary',
      position: 5,
      hidden: true,
      isIncome: true,
      categories: [],
    })
    await expect(
      runMutation(store.db, operations.categoryGroups.update, { id: a, name: 'other' }, ctx),
    ).rejects.toMatchObject({ status: 409, code: 'CATEGORY_GROUP_NAME_TAKEN' })
    const { result: same } = await runMutation(
      store.db,
      operations.categoryGroups.update,
      { id: a, name: 'SALARY' },
      ctx,
    )
    expect(same.name).toBe('SALARY')
  })

  it('answers 404 for a group of another household, a deleted group, or a malformed id', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const other = await newHousehold(store)
    const theirs = ulid()
    await runMutation(store.db, operations.categoryGroups.create, { id: theirs, name: 'Theirs' }, other)
    for (const id of [theirs, 'not-a-ulid']) {
      await expect(
        runMutation(store.db, operations.categoryGroups.update, { id, name: 'Mine' }, ctx),
      ).rejects.toMatchObject({
        status: 404,
        code: 'NOT_FOUND',
      })
      await expect(runQuery(store.db, operations.categoryGroups.get, { id }, ctx)).rejects.toMatchObject({
        status: 404,
      })
      await expect(
        runMutation(store.db, operations.categoryGroups.delete, { id }, ctx),
      ).rejects.toMatchObject({ status: 404 })
    }
  })

  it('soft-deletes a group with its categories and clears payee defaults that pointed at them', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const group = ulid()
    const food = ulid()
    const payee = ulid()
    await runMutation(store.db, operations.categoryGroups.create, { id: group, name: 'Everyday' }, ctx)
    await runMutation(store.db, operations.categories.create, { id: food, groupId: group, name: 'Food' }, ctx)
    await runMutation(
      store.db,
      operations.payees.create,
      { id: payee, name: 'Grocer', categoryId: food },
      ctx,
    )
    const { result, version } = await runMutation(
      store.db,
      operations.categoryGroups.delete,
      { id: group },
      ctx,
    )
    expect(result).toEqual({ id: group, categoryIds: [food] })

    expect((await runQuery(store.db, operations.categoryGroups.list, {}, ctx)).items).toEqual([])
    expect((await runQuery(store.db, operations.categories.list, {}, ctx)).items).toEqual([])
    await expect(runQuery(store.db, operations.categories.get, { id: food }, ctx)).rejects.toMatchObject({
      status: 404,
    })
    expect((await runQuery(store.db, operations.payees.get, { id: payee }, ctx)).categoryId).toBeNull()
    const rows = await store.db.selectFrom('categories').select('deleted_at').where('id', '=', food).execute()
    expect(rows[0]?.deleted_at).toBeInstanceOf(Date)

    const changes = await changesSince(store.db, ctx.householdId, (version ?? 1) - 1)
    expect(changes.map((c) => c.table).sort()).toEqual(['categories', 'category_groups', 'payees'])
    expect(await eventTypes(store, ctx.householdId)).toEqual(
      expect.arrayContaining(['category.deleted', 'payee.updated', 'categoryGroup.deleted']),
    )
    await expect(
      runMutation(store.db, operations.categoryGroups.delete, { id: group }, ctx),
    ).rejects.toMatchObject({
      status: 404,
    })
  })

  it('needs the categories scopes', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const reader = { ...ctx, scopes: ['read:categories' as const] }
    await expect(
      runMutation(store.db, operations.categoryGroups.create, { id: ulid(), name: 'X' }, reader),
    ).rejects.toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' })
    await expect(
      runQuery(store.db, operations.categoryGroups.list, {}, { ...ctx, scopes: ['read:payees'] }),
    ).rejects.toMatchObject({ status: 403 })
    expect((await runQuery(store.db, operations.categoryGroups.list, {}, reader)).items).toEqual([])
  })

  it('refuses unknown fields and blank names with field errors', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    await expect(
      runMutation(
        store.db,
        operations.categoryGroups.create,
        { id: ulid(), name: '   ', colour: 'red' },
        ctx,
      ),
    ).rejects.toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      errors: expect.arrayContaining([
        expect.objectContaining({ path: 'name' }),
        expect.objectContaining({ path: 'colour' }),
      ]),
    })
  })
})
