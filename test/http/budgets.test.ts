import { SCOPES } from '@hearth/engine'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { type ApiClient, useTestServer } from '../src/index.ts'
import { createCategory, createGroup, expectProblem, expectStatus, H } from './catalog-fixture.ts'

const server = useTestServer()

/** A household with income, two spending categories, a checking account and a credit card. */
async function budgetHousehold(api: ApiClient) {
  const income = await createGroup(api, 'Income', { isIncome: true })
  const salary = await createCategory(api, income.id, 'Salary')
  const everyday = await createGroup(api, 'Everyday')
  const food = await createCategory(api, everyday.id, 'Food')
  const fun = await createCategory(api, everyday.id, 'Fun')
  const checking = expectStatus(await api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' }), 201)
  const visa = expectStatus(await api.post(`${H}/accounts`, { name: 'Visa', type: 'credit' }), 201)
  const row = async (accountId: string, categoryId: string | null, amountCents: number, date: string) =>
    expectStatus(await api.post(`${H}/transactions`, { accountId, categoryId, amountCents, date }), 201)
  return { salary, food, fun, checking, visa, row }
}

describe('budgets over HTTP', () => {
  it('answers the month snapshot with Ready to Assign and every category', async () => {
    const { api } = await server.newOwner()
    const h = await budgetHousehold(api)
    await h.row(h.checking.id, h.salary.id, 200_000, '2024-05-01')
    await h.row(h.checking.id, h.food.id, -3_000, '2024-05-02')
    const cell = expectStatus(
      await api.patch(`${H}/budgets/2024-05/categories/${h.food.id}`, { assignedCents: 50_000 }),
      200,
    )
    expect(cell).toEqual({ month: '2024-05', categoryId: h.food.id, assignedCents: '50000' })

    const may = expectStatus(await api.get(`${H}/budgets/2024-05`), 200)
    expect(may).toMatchObject({
      month: '2024-05',
      currency: expect.stringMatching(/^[A-Z]{3}$/),
      incomeCents: '200000',
      assignedCents: '50000',
      readyToAssignCents: '150000',
      availableCents: '47000',
    })
    const one = expectStatus(await api.get(`${H}/budgets/2024-05/categories/${h.food.id}`), 200)
    expect(one).toMatchObject({
      month: '2024-05',
      id: h.food.id,
      assignedCents: '50000',
      activityCents: '-3000',
      availableCents: '47000',
      state: 'funded',
      group: { name: 'Everyday' },
    })
    // The card's payment category is listed under its account id before anything is assigned to it.
    const payment = expectStatus(await api.get(`${H}/budgets/2024-05/categories/${h.visa.id}`), 200)
    expect(payment).toMatchObject({ kind: 'payment', paymentAccountId: h.visa.id, availableCents: '0' })
  })

  it('assigns, moves, copies and resets with history newest first', async () => {
    const { api, member } = await server.newOwner().then(async (owner) => ({
      api: owner.api,
      member: await server.newMember(owner, 'member'),
    }))
    const h = await budgetHousehold(api)
    await api.patch(`${H}/budgets/2024-05/categories/${h.food.id}`, { assignedCents: '10000' })
    const moved = expectStatus(
      await api.post(`${H}/budgets/2024-05/move`, {
        fromCategoryId: h.food.id,
        toCategoryId: h.fun.id,
        amountCents: 4_000,
      }),
      200,
    )
    expect(moved).toEqual({
      from: { month: '2024-05', categoryId: h.food.id, assignedCents: '6000' },
      to: { month: '2024-05', categoryId: h.fun.id, assignedCents: '4000' },
    })
    const history = expectStatus(await api.get(`${H}/budgets/2024-05/categories/${h.food.id}/history`), 200)
    expect(history.items.map((e: any) => [e.kind, e.deltaCents])).toEqual([
      ['move', '-4000'],
      ['assign', '10000'],
    ])

    expect(expectStatus(await api.post(`${H}/budgets/2024-06/copy-from/2024-05`), 200)).toEqual({
      month: '2024-06',
      sourceMonth: '2024-05',
      changed: 2,
    })
    const june = expectStatus(await api.get(`${H}/budgets/2024-06`), 200)
    expect(june.assignedCents).toBe('10000')

    expectProblem(await member.api.post(`${H}/budgets/2024-06/reset`), 403, 'OWNER_ONLY')
    expect(expectStatus(await api.post(`${H}/budgets/2024-06/reset`, {}), 200)).toEqual({
      month: '2024-06',
      changed: 2,
    })
    expect(expectStatus(await api.get(`${H}/budgets/2024-06`), 200).assignedCents).toBe('0')
  })

  it('refuses bad months, income categories, unknown categories and same-category moves', async () => {
    const { api } = await server.newOwner()
    const h = await budgetHousehold(api)
    expectProblem(await api.get(`${H}/budgets/2024-13`), 400, 'VALIDATION_FAILED')
    expectProblem(
      await api.patch(`${H}/budgets/2024-05/categories/${h.salary.id}`, { assignedCents: 1 }),
      400,
      'BUDGET_INCOME_CATEGORY',
    )
    expectProblem(
      await api.patch(`${H}/budgets/2024-05/categories/${ulid()}`, { assignedCents: 1 }),
      404,
      'NOT_FOUND',
    )
    expectProblem(await api.get(`${H}/budgets/2024-05/categories/${ulid()}`), 404, 'NOT_FOUND')
    expectProblem(
      await api.post(`${H}/budgets/2024-05/move`, {
        fromCategoryId: h.food.id,
        toCategoryId: h.food.id,
        amountCents: 1,
      }),
      400,
      'BUDGET_MOVE_SAME_CATEGORY',
    )
    expectProblem(
      await api.patch(`${H}/budgets/2024-05/categories/${h.food.id}`, {}),
      400,
      'NOTHING_TO_UPDATE',
    )
    expectProblem(await api.post(`${H}/budgets/2024-05/copy-from/2024-05`), 400, 'BUDGET_COPY_SAME_MONTH')
  })

  it('makes the card payment category on first assignment and spends card payments from it', async () => {
    const { api } = await server.newOwner()
    const h = await budgetHousehold(api)
    await h.row(h.checking.id, null, 100_000, '2024-05-01')
    await api.patch(`${H}/budgets/2024-05/categories/${h.food.id}`, { assignedCents: 5_000 })
    await h.row(h.visa.id, h.food.id, -8_000, '2024-05-03')
    expectStatus(
      await api.patch(`${H}/budgets/2024-05/categories/${h.visa.id}`, { assignedCents: 3_000 }),
      200,
    )
    const groups = expectStatus(await api.get(`${H}/category-groups`), 200)
    expect(groups.items.find((g: any) => g.name === 'Credit Card Payments')?.categories).toEqual([
      expect.objectContaining({ id: h.visa.id, name: 'Visa' }),
    ])
    const may = expectStatus(await api.get(`${H}/budgets/2024-05`), 200)
    const food = expectStatus(await api.get(`${H}/budgets/2024-05/categories/${h.food.id}`), 200)
    const visa = expectStatus(await api.get(`${H}/budgets/2024-05/categories/${h.visa.id}`), 200)
    expect(food).toMatchObject({ availableCents: '-3000', creditOverspendingCents: '-3000' })
    expect(visa).toMatchObject({ assignedCents: '3000', activityCents: '5000', availableCents: '8000' })
    expect(may.readyToAssignCents).toBe('92000')
  })

  it('auto-assigns goals up to Ready to Assign and shows their progress', async () => {
    const { api } = await server.newOwner()
    const h = await budgetHousehold(api)
    await h.row(h.checking.id, h.salary.id, 50_000, '2024-05-01')
    expectStatus(
      await api.patch(`${H}/categories/${h.food.id}`, { goal: { type: 'monthly', amountCents: '40000' } }),
      200,
    )
    expectStatus(
      await api.patch(`${H}/categories/${h.fun.id}`, {
        goal: { type: 'targetBalanceByDate', targetCents: 30_000, targetDate: '2024-05-31' },
      }),
      200,
    )
    const before = expectStatus(await api.get(`${H}/budgets/2024-05/categories/${h.food.id}`), 200)
    expect(before).toMatchObject({
      state: 'underfunded',
      goal: { type: 'monthly', underfundedCents: '40000' },
    })
    const result = expectStatus(await api.post(`${H}/budgets/2024-05/auto-assign-from-goals`), 200)
    // Both are due at the end of May; Food comes first in display order and takes 40,000, Fun the last 10,000.
    expect(result).toEqual({
      month: '2024-05',
      assigned: [
        { categoryId: h.food.id, previousCents: '0', assignedCents: '40000' },
        { categoryId: h.fun.id, previousCents: '0', assignedCents: '10000' },
      ],
      readyToAssignCents: '0',
    })
    const fun = expectStatus(await api.get(`${H}/budgets/2024-05/categories/${h.fun.id}`), 200)
    expect(fun).toMatchObject({
      state: 'underfunded',
      goal: { underfundedCents: '20000', progressBasisPoints: 3333 },
    })
  })

  it('deletes a category with its money in one step: what it holds moves, what it overspent is covered', async () => {
    const { api } = await server.newOwner()
    const h = await budgetHousehold(api)
    await h.row(h.checking.id, h.salary.id, 200_000, '2024-05-01')
    await h.row(h.checking.id, h.food.id, -3_000, '2024-05-02')
    await api.patch(`${H}/budgets/2024-05/categories/${h.food.id}`, { assignedCents: 10_000 })
    await api.patch(`${H}/budgets/2024-05/categories/${h.fun.id}`, { assignedCents: 1_000 })
    const before = expectStatus(await api.get(`${H}/budgets/2024-05`), 200)

    const deleted = expectStatus(
      await api.post(`${H}/budgets/2024-05/categories/${h.food.id}/delete`, { moveToCategoryId: h.fun.id }),
      200,
    )
    expect(deleted).toEqual({
      month: '2024-05',
      categoryId: h.food.id,
      movedCents: '7000',
      moveTo: { month: '2024-05', categoryId: h.fun.id, assignedCents: '8000' },
    })
    const after = expectStatus(await api.get(`${H}/budgets/2024-05`), 200)
    expect(after.readyToAssignCents).toBe(before.readyToAssignCents)
    const fun = expectStatus(await api.get(`${H}/budgets/2024-05/categories/${h.fun.id}`), 200)
    expect(fun.availableCents).toBe('8000')
    expectProblem(await api.get(`${H}/budgets/2024-05/categories/${h.food.id}`), 404, 'NOT_FOUND')
    const live = expectStatus(await api.get(`${H}/categories`), 200)
    expect(live.items.map((c: any) => c.id)).not.toContain(h.food.id)
    const history = expectStatus(await api.get(`${H}/budgets/2024-05/categories/${h.fun.id}/history`), 200)
    expect(history.items[0]).toMatchObject({
      kind: 'move',
      deltaCents: '7000',
      counterpartCategoryId: h.food.id,
    })
    // The deleted category's transaction keeps it.
    const rows = expectStatus(await api.get(`${H}/transactions?categoryId=${h.food.id}`), 200)
    expect(rows.items).toHaveLength(1)

    // An overspent category: the other one covers it.
    const everyday = expectStatus(await api.get(`${H}/category-groups`), 200).items.find(
      (g: any) => g.name === 'Everyday',
    )
    const gifts = await createCategory(api, everyday.id, 'Gifts')
    await h.row(h.checking.id, gifts.id, -5_000, '2024-05-03')
    const covered = expectStatus(
      await api.post(`${H}/budgets/2024-05/categories/${gifts.id}/delete`, { moveToCategoryId: h.fun.id }),
      200,
    )
    expect(covered).toMatchObject({ movedCents: '-5000', moveTo: { assignedCents: '3000' } })
    const funAfter = expectStatus(await api.get(`${H}/budgets/2024-05/categories/${h.fun.id}`), 200)
    expect(funAfter.availableCents).toBe('3000')

    // A category that holds nothing is deleted without a move.
    const spare = await createCategory(api, everyday.id, 'Spare')
    expect(
      expectStatus(
        await api.post(`${H}/budgets/2024-05/categories/${spare.id}/delete`, { moveToCategoryId: h.fun.id }),
        200,
      ),
    ).toEqual({ month: '2024-05', categoryId: spare.id, movedCents: '0', moveTo: null })
  })

  it('refuses a deletion with its money that cannot be whole, and changes nothing', async () => {
    const owner = await server.newOwner()
    const { api } = owner
    const h = await budgetHousehold(api)
    await api.patch(`${H}/budgets/2024-05/categories/${h.food.id}`, { assignedCents: 10_000 })
    const del = (id: string, body: unknown) => api.post(`${H}/budgets/2024-05/categories/${id}/delete`, body)
    expectProblem(await del(h.food.id, { moveToCategoryId: h.food.id }), 400, 'BUDGET_MOVE_SAME_CATEGORY')
    expectProblem(await del(h.food.id, { moveToCategoryId: h.salary.id }), 400, 'BUDGET_INCOME_CATEGORY')
    expectProblem(await del(h.food.id, { moveToCategoryId: ulid() }), 404, 'NOT_FOUND')
    expectProblem(await del(ulid(), { moveToCategoryId: h.fun.id }), 404, 'NOT_FOUND')
    expectProblem(await del(h.food.id, {}), 400, 'VALIDATION_FAILED')
    // Deleting is a catalog change and a budget change: a key with one of the two rights is refused.
    const noBudgets = await server.newMember(
      owner,
      'member',
      SCOPES.filter((s) => s !== 'write:budgets'),
    )
    expectProblem(
      await noBudgets.api.post(`${H}/budgets/2024-05/categories/${h.food.id}/delete`, {
        moveToCategoryId: h.fun.id,
      }),
      403,
      'INSUFFICIENT_SCOPE',
    )
    const noCategories = await server.newMember(
      owner,
      'member',
      SCOPES.filter((s) => s !== 'write:categories'),
    )
    expectProblem(
      await noCategories.api.post(`${H}/budgets/2024-05/categories/${h.food.id}/delete`, {
        moveToCategoryId: h.fun.id,
      }),
      403,
      'INSUFFICIENT_SCOPE',
    )
    const food = expectStatus(await api.get(`${H}/budgets/2024-05/categories/${h.food.id}`), 200)
    expect(food).toMatchObject({ assignedCents: '10000', availableCents: '10000' })
  })
})
