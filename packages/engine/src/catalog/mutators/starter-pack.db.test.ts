import { type HouseholdContext, operations, runMutation, runQuery, type Store } from '@hearth/engine'
import { newHousehold, sharedStore } from '@hearth/test/store'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { MAX_POSITION } from '../fields.ts'
import { STARTER_PACK } from '../starter-pack.ts'
import { starterPackId } from './starter-pack.ts'

const PACK_CATEGORIES = STARTER_PACK.reduce((n, g) => n + g.categories.length, 0)

async function seed(store: Store, ctx: HouseholdContext, seedId = ulid()) {
  return (await runMutation(store.db, operations.catalog.seedStarterPack, { seedId }, ctx)).result
}

async function setLanguage(store: Store, ctx: HouseholdContext, dataLanguage: string) {
  await runMutation(store.db, operations.households.update, { dataLanguage }, ctx)
}

describe('catalog.seedStarterPack', () => {
  it('fills in after a row already at the last position rather than overflowing it', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const last = { position: MAX_POSITION }
    await runMutation(store.db, operations.categoryGroups.create, { id: ulid(), name: 'Mine', ...last }, ctx)
    // A pack group of the same name is reused; its new categories come after this one.
    const bills = ulid()
    const name = STARTER_PACK[0]!.names.en
    await runMutation(store.db, operations.categoryGroups.create, { id: bills, name }, ctx)
    await runMutation(
      store.db,
      operations.categories.create,
      { id: ulid(), groupId: bills, name: 'Mine', ...last },
      ctx,
    )
    const result = await seed(store, ctx)
    expect(result.created.groups.length).toBe(STARTER_PACK.length - 1)
    expect(new Set(result.created.groups.map((g) => g.position))).toEqual(new Set([MAX_POSITION]))
    const inBills = result.created.categories.filter((c) => c.groupId === bills)
    expect(inBills.length).toBe(STARTER_PACK[0]!.categories.length)
    expect(new Set(inBills.map((c) => c.position))).toEqual(new Set([MAX_POSITION]))
  })

  it('creates every pack group and category in English, in order, with ids derived from the seed id', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const seedId = ulid()
    const result = await seed(store, ctx, seedId)
    expect(result.language).toBe('en')
    expect(result.skipped).toEqual({ groups: [], categories: [] })
    expect(result.created.groups.map((g) => [g.name, g.position, g.isIncome])).toEqual(
      STARTER_PACK.map((g, i) => [g.names.en, i, g.isIncome]),
    )
    expect(result.created.groups.map((g) => g.id)).toEqual(
      STARTER_PACK.map((g) => starterPackId(seedId, 'group', g.key)),
    )
    expect(result.created.categories).toHaveLength(PACK_CATEGORIES)

    const { items } = await runQuery(store.db, operations.categoryGroups.list, {}, ctx)
    expect(items.map((g) => g.name)).toEqual(STARTER_PACK.map((g) => g.names.en))
    expect(items[0]?.categories?.map((c) => [c.name, c.position])).toEqual(
      STARTER_PACK[0]?.categories.map((c, i) => [c.names.en, i]),
    )
    expect(items.find((g) => g.name === 'Income')?.categories?.map((c) => c.name)).toEqual([
      'Salary',
      'Other Income',
    ])
  })

  it('creates nothing on a second run, reporting every row as skipped', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const first = await seed(store, ctx)
    const second = await seed(store, ctx)
    expect(second.created).toEqual({ groups: [], categories: [] })
    expect(second.skipped.groups.map((g) => g.id)).toEqual(first.created.groups.map((g) => g.id))
    expect(second.skipped.categories.map((c) => c.id)).toEqual(first.created.categories.map((c) => c.id))
    const { items } = await runQuery(store.db, operations.categories.list, {}, ctx)
    expect(items).toHaveLength(PACK_CATEGORIES)
  })

  it('is a no-op when replayed with the same seed id', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const seedId = ulid()
    await seed(store, ctx, seedId)
    const replay = await seed(store, ctx, seedId)
    expect(replay.created).toEqual({ groups: [], categories: [] })
  })

  it('uses the household data language, by its primary subtag', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    await setLanguage(store, ctx, 'de-AT')
    const result = await seed(store, ctx)
    expect(result.language).toBe('de')
    expect(result.created.groups.map((g) => g.name)).toEqual(STARTER_PACK.map((g) => g.names.de))
    expect(result.created.categories.map((c) => c.name)).toContain('Lebensmittel')
  })

  it.each([
    ['fr-CA', 'fr', 'Courses'],
    ['es', 'es', 'Supermercado'],
    ['it', 'en', 'Groceries'],
  ])('seeds a %s household with %s names', async (dataLanguage, language, groceries) => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    await setLanguage(store, ctx, dataLanguage)
    const result = await seed(store, ctx)
    expect(result.language).toBe(language)
    expect(result.created.categories.map((c) => c.name)).toContain(groceries)
  })

  it('reuses a live group of the same name in any case, adding missing categories after its own', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const bills = ulid()
    const mine = ulid()
    await runMutation(store.db, operations.categoryGroups.create, { id: bills, name: 'BILLS' }, ctx)
    await runMutation(store.db, operations.categoryGroups.create, { id: mine, name: 'Mine' }, ctx)
    const rent = ulid()
    await runMutation(
      store.db,
      operations.categories.create,
      { id: rent, groupId: bills, name: 'rent or mortgage' },
      ctx,
    )
    await runMutation(
      store.db,
      operations.categories.create,
      { id: ulid(), groupId: bills, name: 'Parking' },
      ctx,
    )
    const groceries = ulid()
    await runMutation(
      store.db,
      operations.categories.create,
      { id: groceries, groupId: mine, name: 'Groceries' },
      ctx,
    )

    const result = await seed(store, ctx)
    expect(result.skipped.groups.map((g) => g.id)).toEqual([bills])
    expect(result.skipped.categories.map((c) => c.id)).toEqual([rent, groceries])
    expect(result.created.groups.map((g) => g.name)).not.toContain('Bills')
    expect(result.created.groups[0]?.position).toBe(2)
    expect(result.created.categories).toHaveLength(PACK_CATEGORIES - 2)

    const group = await runQuery(store.db, operations.categoryGroups.get, { id: bills }, ctx)
    expect(group.categories?.map((c) => [c.name, c.position])).toEqual([
      ['rent or mortgage', 0],
      ['Parking', 1],
      ['Utilities', 2],
      ['Phone and Internet', 3],
      ['Insurance', 4],
      ['Subscriptions', 5],
    ])
  })

  it('recreates a deleted pack category, and refuses a reused seed id whose rows were deleted', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const seedId = ulid()
    const first = await seed(store, ctx, seedId)
    const gifts = first.created.categories.find((c) => c.name === 'Gifts')
    await runMutation(store.db, operations.categories.delete, { id: gifts?.id }, ctx)

    await expect(seed(store, ctx, seedId)).rejects.toMatchObject({ status: 409, code: 'ID_ALREADY_EXISTS' })
    const again = await seed(store, ctx)
    expect(again.created.groups).toEqual([])
    expect(again.created.categories.map((c) => [c.name, c.groupId])).toEqual([['Gifts', gifts?.groupId]])
    expect(again.created.categories[0]?.id).not.toBe(gifts?.id)
  })

  it('emits one created event per new row', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    await seed(store, ctx)
    const rows = await store.db
      .selectFrom('outbox')
      .select('payload')
      .where('household_id', '=', ctx.householdId)
      .execute()
    const types = rows.map((r) => String(r.payload.type))
    expect(types.filter((t) => t === 'categoryGroup.created')).toHaveLength(STARTER_PACK.length)
    expect(types.filter((t) => t === 'category.created')).toHaveLength(PACK_CATEGORIES)
  })

  it('needs the write:categories scope', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    await expect(
      runMutation(
        store.db,
        operations.catalog.seedStarterPack,
        { seedId: ulid() },
        { ...ctx, scopes: ['read:categories'] },
      ),
    ).rejects.toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' })
  })

  it('seeds the pack as the household edited it, in one run, and creates nothing twice on a repeat', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const groups = [
      { name: 'Home', categories: ['Rent', 'Energy', 'rent'] },
      { name: 'Money in', isIncome: true, categories: ['Wages'] },
    ]
    const seedId = ulid()
    const run = () => runMutation(store.db, operations.catalog.seedStarterPack, { seedId, groups }, ctx)
    const first = (await run()).result
    expect(first.created.groups.map((g) => [g.name, g.isIncome])).toEqual([
      ['Home', false],
      ['Money in', true],
    ])
    expect(first.created.categories.map((c) => c.name)).toEqual(['Rent', 'Energy', 'Wages'])
    // The same request again (a retry after a dropped answer) finds every name and adds nothing.
    const again = (await run()).result
    expect([again.created.groups.length, again.created.categories.length]).toEqual([0, 0])
    const listed = await runQuery(store.db, operations.categories.list, {}, ctx)
    expect(listed.items.map((c) => c.name).sort()).toEqual(['Energy', 'Rent', 'Wages'])
  })
})
