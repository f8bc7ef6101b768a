import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { createCategory, createGroup, expectProblem, expectStatus, H } from './catalog-fixture.ts'

const server = useTestServer()

describe('category groups over HTTP', () => {
  it('creates groups last in order and lists them with their categories nested', async () => {
    const { api } = await server.newOwner()
    const bills = await createGroup(api, '  Bills ')
    expect(bills).toMatchObject({
      id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      name: 'Bills',
      position: 0,
      hidden: false,
      isIncome: false,
      categories: [],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    const id = ulid()
    const income = await createGroup(api, 'Income', { id, isIncome: true })
    expect(income).toMatchObject({ id, position: 1, isIncome: true })
    const rent = await createCategory(api, bills.id, 'Rent')
    const list = expectStatus(await api.get(`${H}/category-groups`), 200)
    expect(list.items.map((g: any) => g.name)).toEqual(['Bills', 'Income'])
    expect(list.items[0].categories).toEqual([rent])
    expect(list.nextCursor).toBeUndefined()
  })

  it('updates a group and answers with its categories', async () => {
    const { api } = await server.newOwner()
    const group = await createGroup(api, 'Fun')
    const movies = await createCategory(api, group.id, 'Movies')
    const res = await api.patch(`${H}/category-groups/${group.id}`, {
      name: 'Leisure',
      hidden: true,
      position: 7,
    })
    expect(expectStatus(res, 200)).toMatchObject({
      id: group.id,
      name: 'Leisure',
      hidden: true,
      position: 7,
      categories: [movies],
    })
  })

  it('refuses a duplicate name in any case with 409 and names the holder', async () => {
    const { api } = await server.newOwner()
    const bills = await createGroup(api, 'Bills')
    const body = expectProblem(
      await api.post(`${H}/category-groups`, { name: 'BILLS' }),
      409,
      'CATEGORY_GROUP_NAME_TAKEN',
    )
    expect(body.categoryGroupId).toBe(bills.id)
    const other = await createGroup(api, 'Other')
    expectProblem(
      await api.patch(`${H}/category-groups/${other.id}`, { name: 'bills' }),
      409,
      'CATEGORY_GROUP_NAME_TAKEN',
    )
  })

  it('refuses an id already in use with 409 ID_ALREADY_EXISTS', async () => {
    const { api } = await server.newOwner()
    const group = await createGroup(api, 'First')
    expectProblem(
      await api.post(`${H}/category-groups`, { id: group.id, name: 'Second' }),
      409,
      'ID_ALREADY_EXISTS',
    )
  })

  it('refuses bad input with 400 VALIDATION_FAILED', async () => {
    const { api } = await server.newOwner()
    const unknown = expectProblem(
      await api.post(`${H}/category-groups`, { name: 'X', colour: 'red' }),
      400,
      'VALIDATION_FAILED',
    )
    expect(unknown.errors).toEqual([expect.objectContaining({ path: 'colour', code: 'unknown_field' })])
    expectProblem(await api.post(`${H}/category-groups`, { name: '   ' }), 400, 'VALIDATION_FAILED')
    expectProblem(await api.post(`${H}/category-groups`, { name: 'X', id: 'nope' }), 400, 'VALIDATION_FAILED')
    const group = await createGroup(api, 'Y')
    expectProblem(
      await api.patch(`${H}/category-groups/${group.id}`, { position: -1 }),
      400,
      'VALIDATION_FAILED',
    )
    expectProblem(await api.patch(`${H}/category-groups/${group.id}`, { extra: 1 }), 400, 'VALIDATION_FAILED')
  })

  it('soft-deletes a group together with its categories', async () => {
    const { api } = await server.newOwner()
    const group = await createGroup(api, 'Doomed')
    const keep = await createGroup(api, 'Kept')
    const a = await createCategory(api, group.id, 'A')
    await createCategory(api, group.id, 'B')
    const kept = await createCategory(api, keep.id, 'C')
    const payee = expectStatus(await api.post(`${H}/payees`, { name: 'Shop', categoryId: a.id }), 201)

    expect((await api.delete(`${H}/category-groups/${group.id}`)).status).toBe(204)
    const groups = expectStatus(await api.get(`${H}/category-groups`), 200)
    expect(groups.items.map((g: any) => g.id)).toEqual([keep.id])
    const categories = expectStatus(await api.get(`${H}/categories`), 200)
    expect(categories.items).toEqual([kept])
    expectProblem(await api.patch(`${H}/categories/${a.id}`, { name: 'Back' }), 404, 'NOT_FOUND')
    expect(expectStatus(await api.get(`${H}/payees/${payee.id}`), 200).categoryId).toBeNull()
    expectProblem(await api.delete(`${H}/category-groups/${group.id}`), 404, 'NOT_FOUND')
    expectProblem(await api.patch(`${H}/category-groups/${group.id}`, { name: 'Z' }), 404, 'NOT_FOUND')
    // The name is free again.
    await createGroup(api, 'Doomed')
  })

  it("answers 404 for another household's group", async () => {
    const a = await server.newOwner()
    const b = await server.newOwner()
    const group = await createGroup(a.api, 'Private')
    expectProblem(await b.api.patch(`${H}/category-groups/${group.id}`, { name: 'Mine' }), 404, 'NOT_FOUND')
    expectProblem(await b.api.delete(`${H}/category-groups/${group.id}`), 404, 'NOT_FOUND')
    expectProblem(await b.api.get(`/households/${a.householdId}/category-groups`), 404, 'NOT_FOUND')
    expect(expectStatus(await b.api.get(`${H}/category-groups`), 200).items).toEqual([])
  })

  it('needs read:categories to list and write:categories to change', async () => {
    const reader = await server.newOwner(['read:categories'])
    const writer = await server.newOwner(['write:categories'])
    expectProblem(await reader.api.post(`${H}/category-groups`, { name: 'X' }), 403, 'INSUFFICIENT_SCOPE')
    expectProblem(await reader.api.patch(`${H}/category-groups/${ulid()}`, {}), 403, 'INSUFFICIENT_SCOPE')
    expectProblem(await reader.api.delete(`${H}/category-groups/${ulid()}`), 403, 'INSUFFICIENT_SCOPE')
    expectProblem(await writer.api.get(`${H}/category-groups`), 403, 'INSUFFICIENT_SCOPE')
    expect((await reader.api.get(`${H}/category-groups`)).status).toBe(200)
  })
})

describe('categories over HTTP', () => {
  it('creates categories last in their group and lists them in display order', async () => {
    const { api } = await server.newOwner()
    const second = await createGroup(api, 'Second', { position: 5 })
    const first = await createGroup(api, 'First', { position: 1 })
    const x = await createCategory(api, second.id, 'X')
    const b = await createCategory(api, first.id, 'B')
    const a = await createCategory(api, first.id, 'A', { position: 0, hidden: true })
    expect(b).toMatchObject({ groupId: first.id, name: 'B', position: 0, hidden: false })
    expect(a).toMatchObject({ position: 0, hidden: true })
    const list = expectStatus(await api.get(`${H}/categories`), 200)
    // Ties on position break by id, so by creation order.
    expect(list.items.map((c: any) => c.name)).toEqual(['B', 'A', 'X'])
    const filtered = expectStatus(await api.get(`${H}/categories?groupId=${second.id}`), 200)
    expect(filtered.items).toEqual([x])
  })

  it('allows a name twice in different groups but not within one', async () => {
    const { api } = await server.newOwner()
    const g1 = await createGroup(api, 'G1')
    const g2 = await createGroup(api, 'G2')
    const fuel = await createCategory(api, g1.id, 'Fuel')
    await createCategory(api, g2.id, 'Fuel')
    const body = expectProblem(
      await api.post(`${H}/categories`, { groupId: g1.id, name: 'fuel' }),
      409,
      'CATEGORY_NAME_TAKEN',
    )
    expect(body.categoryId).toBe(fuel.id)
    const other = await createCategory(api, g1.id, 'Other')
    expectProblem(
      await api.patch(`${H}/categories/${other.id}`, { name: 'FUEL' }),
      409,
      'CATEGORY_NAME_TAKEN',
    )
  })

  it('refuses a missing, deleted or foreign group with 404 and a malformed one with 400', async () => {
    const a = await server.newOwner()
    const b = await server.newOwner()
    const foreign = await createGroup(b.api, 'Theirs')
    const deleted = await createGroup(a.api, 'Gone')
    await a.api.delete(`${H}/category-groups/${deleted.id}`)
    for (const groupId of [ulid(), foreign.id, deleted.id]) {
      const body = expectProblem(
        await a.api.post(`${H}/categories`, { groupId, name: 'X' }),
        404,
        'NOT_FOUND',
      )
      expect(body.resource).toBe('Category group')
    }
    expectProblem(
      await a.api.post(`${H}/categories`, { groupId: 'nope', name: 'X' }),
      400,
      'VALIDATION_FAILED',
    )
    expectProblem(await a.api.post(`${H}/categories`, { name: 'X' }), 400, 'VALIDATION_FAILED')
    expectProblem(await a.api.get(`${H}/categories?groupId=nope`), 400, 'VALIDATION_FAILED')
    expectProblem(await a.api.get(`${H}/categories?sort=name`), 400, 'VALIDATION_FAILED')
  })

  it('renames, hides and moves a category, placing it last in its new group', async () => {
    const { api } = await server.newOwner()
    const from = await createGroup(api, 'From')
    const to = await createGroup(api, 'To')
    await createCategory(api, to.id, 'Existing')
    const cat = await createCategory(api, from.id, 'Mover')
    const moved = expectStatus(
      await api.patch(`${H}/categories/${cat.id}`, { groupId: to.id, name: 'Moved', hidden: true }),
      200,
    )
    expect(moved).toMatchObject({ id: cat.id, groupId: to.id, name: 'Moved', hidden: true, position: 1 })
    expect(Date.parse(moved.updatedAt)).toBeGreaterThanOrEqual(Date.parse(cat.updatedAt))
    expectProblem(await api.patch(`${H}/categories/${cat.id}`, { groupId: ulid() }), 404, 'NOT_FOUND')
    expectProblem(await api.patch(`${H}/categories/${cat.id}`, { id: ulid() }), 400, 'VALIDATION_FAILED')
    expectProblem(await api.patch(`${H}/categories/not-a-ulid`, { name: 'X' }), 404, 'NOT_FOUND')
  })

  it('soft-deletes a category, clears payee defaults and answers 404 the second time', async () => {
    const { api } = await server.newOwner()
    const group = await createGroup(api, 'G')
    const cat = await createCategory(api, group.id, 'Doomed')
    const payee = expectStatus(await api.post(`${H}/payees`, { name: 'P', categoryId: cat.id }), 201)
    const res = await api.delete(`${H}/categories/${cat.id}`)
    expect(res.status).toBe(204)
    expect(res.body).toBe('')
    expect(expectStatus(await api.get(`${H}/categories`), 200).items).toEqual([])
    expect(expectStatus(await api.get(`${H}/payees/${payee.id}`), 200).categoryId).toBeNull()
    expectProblem(await api.delete(`${H}/categories/${cat.id}`), 404, 'NOT_FOUND')
    // A deleted category cannot become a payee default.
    expectProblem(await api.patch(`${H}/payees/${payee.id}`, { categoryId: cat.id }), 404, 'NOT_FOUND')
    await createCategory(api, group.id, 'Doomed')
  })

  it("answers 404 for another household's category", async () => {
    const a = await server.newOwner()
    const b = await server.newOwner()
    const group = await createGroup(a.api, 'G')
    const cat = await createCategory(a.api, group.id, 'Private')
    expectProblem(await b.api.patch(`${H}/categories/${cat.id}`, { name: 'Mine' }), 404, 'NOT_FOUND')
    expectProblem(await b.api.delete(`${H}/categories/${cat.id}`), 404, 'NOT_FOUND')
    expectProblem(await b.api.get(`/households/${a.householdId}/categories`), 404, 'NOT_FOUND')
    expect(expectStatus(await a.api.get(`${H}/categories`), 200).items).toEqual([cat])
  })

  it('needs read:categories to list and write:categories to change', async () => {
    const reader = await server.newOwner(['read:categories'])
    const writer = await server.newOwner(['write:categories'])
    expectProblem(
      await reader.api.post(`${H}/categories`, { groupId: ulid(), name: 'X' }),
      403,
      'INSUFFICIENT_SCOPE',
    )
    expectProblem(await reader.api.patch(`${H}/categories/${ulid()}`, {}), 403, 'INSUFFICIENT_SCOPE')
    expectProblem(await reader.api.delete(`${H}/categories/${ulid()}`), 403, 'INSUFFICIENT_SCOPE')
    expectProblem(
      await reader.api.post(`${H}/categories/reorder`, { items: [{ id: ulid(), position: 0 }] }),
      403,
      'INSUFFICIENT_SCOPE',
    )
    expectProblem(await writer.api.get(`${H}/categories`), 403, 'INSUFFICIENT_SCOPE')
  })
})

describe('category reorder over HTTP', () => {
  async function setup() {
    const owner = await server.newOwner()
    const g1 = await createGroup(owner.api, 'G1')
    const g2 = await createGroup(owner.api, 'G2')
    const a = await createCategory(owner.api, g1.id, 'A')
    const b = await createCategory(owner.api, g1.id, 'B')
    const c = await createCategory(owner.api, g2.id, 'C')
    return { ...owner, g1, g2, a, b, c }
  }

  async function layout(api: any) {
    const { items } = expectStatus(await api.get(`${H}/categories`), 200)
    return items.map((c: any) => [c.name, c.groupId, c.position])
  }

  it('moves categories within and across groups atomically and answers 204', async () => {
    const { api, g1, g2, a, b, c } = await setup()
    const res = await api.post(`${H}/categories/reorder`, {
      items: [
        { id: b.id, position: 0 },
        { id: a.id, groupId: g2.id, position: 0 },
        { id: c.id, position: 1 },
      ],
    })
    expect(res.status).toBe(204)
    expect(await layout(api)).toEqual([
      ['B', g1.id, 0],
      ['A', g2.id, 0],
      ['C', g2.id, 1],
    ])
  })

  it('refuses an id listed twice with 400 REORDER_DUPLICATE_ID and changes nothing', async () => {
    const { api, g2, a, b } = await setup()
    const before = await layout(api)
    const body = expectProblem(
      await api.post(`${H}/categories/reorder`, {
        items: [
          { id: a.id, groupId: g2.id, position: 3 },
          { id: b.id, position: 2 },
          { id: a.id, position: 1 },
        ],
      }),
      400,
      'REORDER_DUPLICATE_ID',
    )
    expect(body.errors).toEqual([expect.objectContaining({ path: 'items.2.id' })])
    expect(await layout(api)).toEqual(before)
  })

  it('refuses unknown, deleted or foreign ids with 400 REORDER_UNKNOWN_ID and changes nothing', async () => {
    const { api, g1, a, b, c } = await setup()
    const other = await server.newOwner()
    const theirGroup = await createGroup(other.api, 'Theirs')
    const theirs = await createCategory(other.api, theirGroup.id, 'T')
    await api.delete(`${H}/categories/${c.id}`)
    const before = await layout(api)
    const body = expectProblem(
      await api.post(`${H}/categories/reorder`, {
        items: [
          { id: a.id, position: 9 },
          { id: ulid(), position: 0 },
          { id: theirs.id, position: 1 },
          { id: c.id, position: 2 },
          { id: b.id, groupId: theirGroup.id, position: 3 },
        ],
      }),
      400,
      'REORDER_UNKNOWN_ID',
    )
    expect(body.errors.map((e: any) => e.path)).toEqual([
      'items.1.id',
      'items.2.id',
      'items.3.id',
      'items.4.groupId',
    ])
    expect(await layout(api)).toEqual(before)
    expect(before[0]).toEqual(['A', g1.id, 0])
  })

  it('refuses a move that would put two same-named categories in one group, changing nothing', async () => {
    const { api, g1, g2 } = await setup()
    const twin = await createCategory(api, g2.id, 'a')
    const before = await layout(api)
    expectProblem(
      await api.post(`${H}/categories/reorder`, { items: [{ id: twin.id, groupId: g1.id, position: 0 }] }),
      409,
      'CATEGORY_NAME_TAKEN',
    )
    expect(await layout(api)).toEqual(before)
  })

  it('refuses malformed bodies with 400 VALIDATION_FAILED', async () => {
    const { api, a } = await setup()
    for (const body of [
      {},
      { items: [] },
      { items: [{ id: a.id }] },
      { items: [{ id: a.id, position: 1.5 }] },
      { items: [{ id: 'bad', position: 0 }] },
      { items: [{ id: a.id, position: 0, name: 'x' }] },
    ]) {
      expectProblem(await api.post(`${H}/categories/reorder`, body), 400, 'VALIDATION_FAILED')
    }
  })
})

describe('carrying overspending', () => {
  it('is a setting of the category, read and changed on the Category resource', async () => {
    const owner = await server.newOwner()
    const H = `/households/${owner.householdId}`
    const group = await owner.api.post(`${H}/category-groups`, { name: 'Bills' })
    const made = await owner.api.post(`${H}/categories`, { groupId: group.body.id, name: 'Car repairs' })
    expect(made.body.carryOverspending).toBe(false)
    const patched = await owner.api.patch(`${H}/categories/${made.body.id}`, { carryOverspending: true })
    expect(patched.status).toBe(200)
    expect(patched.body.carryOverspending).toBe(true)
    const listed = (await owner.api.get(`${H}/categories`)).body.items.find((c: any) => c.id === made.body.id)
    expect(listed.carryOverspending).toBe(true)
    const month = await owner.api.get(`${H}/budgets/2024-03`)
    const cell = month.body.groups.flatMap((g: any) => g.categories).find((c: any) => c.id === made.body.id)
    expect(cell.carryOverspending).toBe(true)
  })

  it('is set when the category is created, and a non-boolean is refused naming the field', async () => {
    const owner = await server.newOwner()
    const H = `/households/${owner.householdId}`
    const group = await owner.api.post(`${H}/category-groups`, { name: 'Bills' })
    const made = await owner.api.post(`${H}/categories`, {
      groupId: group.body.id,
      name: 'Car repairs',
      carryOverspending: true,
    })
    expect(made.status).toBe(201)
    expect(made.body.carryOverspending).toBe(true)
    const plain = await owner.api.post(`${H}/categories`, { groupId: group.body.id, name: 'Fuel' })
    expect(plain.body.carryOverspending).toBe(false)
    const listed = (await owner.api.get(`${H}/categories`)).body.items
    expect(listed.find((c: any) => c.id === made.body.id).carryOverspending).toBe(true)
    expect(listed.find((c: any) => c.id === plain.body.id).carryOverspending).toBe(false)
    const month = await owner.api.get(`${H}/budgets/2024-03`)
    const cell = month.body.groups.flatMap((g: any) => g.categories).find((c: any) => c.id === made.body.id)
    expect(cell.carryOverspending).toBe(true)

    const bad = await owner.api.post(`${H}/categories`, {
      groupId: group.body.id,
      name: 'Tyres',
      carryOverspending: 'yes',
    })
    const body = expectProblem(bad, 400, 'VALIDATION_FAILED')
    expect(body.errors.map((e: any) => e.path)).toEqual(['carryOverspending'])
    const after = (await owner.api.get(`${H}/categories`)).body.items
    expect(after.some((c: any) => c.name === 'Tyres')).toBe(false)
  })
})
