import { afterEach, describe, expect, it } from 'vitest'
import { newOwner, type TestMember, useTestServer } from '../src/index.ts'
import { closeDevices, eventually, newDevice } from './devices.ts'

const server = useTestServer()
afterEach(async () => {
  await closeDevices()
})

const H = '/households/current'

/** Income, Food and Fun, a checking account and a card, with a few rows and an assignment, over REST. */
async function household(owner: TestMember) {
  const { api } = owner
  const post = async (path: string, body: unknown) => {
    const res = await api.post(`${H}/${path}`, body)
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    return res.body as { id: string }
  }
  const income = await post('category-groups', { name: 'Income', isIncome: true })
  const salary = await post('categories', { groupId: income.id, name: 'Salary' })
  const everyday = await post('category-groups', { name: 'Everyday' })
  const food = await post('categories', { groupId: everyday.id, name: 'Food' })
  const fun = await post('categories', { groupId: everyday.id, name: 'Fun' })
  const checking = await post('accounts', { name: 'Checking', type: 'cash' })
  const visa = await post('accounts', { name: 'Visa', type: 'credit' })
  await post('transactions', {
    accountId: checking.id,
    categoryId: salary.id,
    amountCents: 250_000,
    date: '2024-05-01',
  })
  await post('transactions', {
    accountId: checking.id,
    categoryId: food.id,
    amountCents: -4_000,
    date: '2024-05-03',
  })
  await post('transactions', {
    accountId: visa.id,
    categoryId: fun.id,
    amountCents: -9_000,
    date: '2024-05-04',
  })
  expect(
    (await api.patch(`${H}/budgets/2024-05/categories/${food.id}`, { assignedCents: 30_000 })).status,
  ).toBe(200)
  expect(
    (await api.patch(`${H}/budgets/2024-05/categories/${fun.id}`, { assignedCents: 5_000 })).status,
  ).toBe(200)
  return { food: food.id, fun: fun.id, visa: visa.id, checking: checking.id }
}

describe('budgets on a device', () => {
  it('computes the same month snapshot and category on the replica as the server answers over REST', async () => {
    const owner = await newOwner(server)
    const h = await household(owner)
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    for (const month of ['2024-04', '2024-05', '2024-06']) {
      const rest = await owner.api.get(`${H}/budgets/${month}`)
      expect(await device.query.budgets.get({ month })).toEqual(rest.body)
    }
    const rest = await owner.api.get(`${H}/budgets/2024-05/categories/${h.fun}`)
    expect(await device.query.budgets.getCategory({ month: '2024-05', categoryId: h.fun })).toEqual(rest.body)
    expect(rest.body).toMatchObject({ availableCents: '-4000', creditOverspendingCents: '-4000' })
  })

  it('forgets the months it kept when rows from the server reach back into them', async () => {
    const owner = await newOwner(server)
    const h = await household(owner)
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    // The device reads July, keeping the closings of May and June on its replica.
    const before = await device.query.budgets.get({ month: '2024-07' })
    // Another member's change dated in May arrives as server rows (applied in replica mode).
    const res = await owner.api.post(`${H}/transactions`, {
      accountId: h.checking,
      categoryId: h.food,
      amountCents: -12_000,
      date: '2024-05-20',
    })
    expect(res.status).toBe(201)
    const rest = await owner.api.get(`${H}/budgets/2024-07`)
    expect(rest.body).not.toEqual(before)
    await eventually(async () =>
      expect(await device.query.budgets.get({ month: '2024-07' })).toEqual(rest.body),
    )
  })

  it('assigns and moves offline, answers at once, and the server agrees after sync', async () => {
    const owner = await newOwner(server)
    const h = await household(owner)
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    await device.sync.disconnect()
    await device.mutate.budgets.assign({ month: '2024-05', categoryId: h.fun, assignedCents: 9_000 })
    // The card's payment category is made offline, with the ids the server will make too.
    await device.mutate.budgets.move({
      month: '2024-05',
      fromCategoryId: h.food,
      toCategoryId: h.visa,
      amountCents: 1_000,
    })
    const local = await device.query.budgets.get({ month: '2024-05' })
    expect(local.readyToAssignCents).toBe('211000')

    device.sync.connect()
    await device.sync.whenSynced()
    const rest = await owner.api.get(`${H}/budgets/2024-05`)
    expect(rest.body).toEqual(local)
    expect(await device.query.budgets.get({ month: '2024-05' })).toEqual(rest.body)
    const history = await owner.api.get(`${H}/budgets/2024-05/categories/${h.visa}/history`)
    expect(history.body.items).toEqual([expect.objectContaining({ kind: 'move', deltaCents: '1000' })])
  })

  it('deletes a category with its money offline in one mutation, and the server agrees after sync', async () => {
    const owner = await newOwner(server)
    const h = await household(owner)
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    await device.sync.disconnect()
    // Food holds 260.00 in May (300.00 assigned, 40.00 spent): all of it goes to Fun.
    const deleted = await device.mutate.budgets.deleteCategory({
      month: '2024-05',
      categoryId: h.food,
      moveToCategoryId: h.fun,
    })
    expect(deleted).toEqual({
      month: '2024-05',
      categoryId: h.food,
      movedCents: '26000',
      moveTo: { month: '2024-05', categoryId: h.fun, assignedCents: '31000' },
    })
    const local = await device.query.budgets.get({ month: '2024-05' })
    const categories = await device.query.categories.list({})
    expect(categories.items.map((c) => c.id)).not.toContain(h.food)

    device.sync.connect()
    await device.sync.whenSynced()
    const rest = await owner.api.get(`${H}/budgets/2024-05`)
    expect(rest.body).toEqual(local)
    const fun = await owner.api.get(`${H}/budgets/2024-05/categories/${h.fun}`)
    expect(fun.body).toMatchObject({ assignedCents: '31000', availableCents: '22000' })
    const live = await owner.api.get(`${H}/categories`)
    expect(live.body.items.map((c: { id: string }) => c.id)).not.toContain(h.food)
    const history = await owner.api.get(`${H}/budgets/2024-05/categories/${h.fun}/history`)
    expect(history.body.items[0]).toMatchObject({
      kind: 'move',
      deltaCents: '26000',
      counterpartCategoryId: h.food,
    })
  })

  it('converges when two devices assign one category offline, keeping both in the history', async () => {
    const owner = await newOwner(server)
    const h = await household(owner)
    const a = await newDevice(server, owner)
    const b = await newDevice(server, owner)
    await Promise.all([a.sync.whenSynced(), b.sync.whenSynced()])
    await a.sync.disconnect()
    await b.sync.disconnect()
    await a.mutate.budgets.assign({ month: '2024-05', categoryId: h.food, assignedCents: 11_111 })
    await b.mutate.budgets.assign({ month: '2024-05', categoryId: h.food, assignedCents: 22_222 })

    a.sync.connect()
    await a.sync.whenSynced()
    b.sync.connect()
    await b.sync.whenSynced()
    await eventually(async () => {
      const onA = await a.query.budgets.getCategory({ month: '2024-05', categoryId: h.food })
      expect(onA.assignedCents).toBe('22222')
    })
    const rest = await owner.api.get(`${H}/budgets/2024-05/categories/${h.food}`)
    expect(rest.body.assignedCents).toBe('22222')
    expect(await b.query.budgets.getCategory({ month: '2024-05', categoryId: h.food })).toEqual(rest.body)
    const cells = await server.store.db
      .selectFrom('budget_cells')
      .select('id')
      .where('household_id', '=', owner.householdId)
      .where('category_id', '=', h.food)
      .execute()
    expect(cells).toEqual([{ id: `2024-05:${h.food}` }])
    const history = await owner.api.get(`${H}/budgets/2024-05/categories/${h.food}/history`)
    expect(
      history.body.items.map((e: { previousCents: string; assignedCents: string }) => [
        e.previousCents,
        e.assignedCents,
      ]),
    ).toEqual([
      ['11111', '22222'],
      ['30000', '11111'],
      ['0', '30000'],
    ])
    await eventually(async () => {
      expect(await a.query.budgets.history({ month: '2024-05', categoryId: h.food })).toEqual(history.body)
    })
  })
})
