import { describe, expect, it } from 'vitest'
import { type ApiClient, useTestServer } from '../src/index.ts'
import { createCategory, createGroup, expectProblem, expectStatus, H } from './catalog-fixture.ts'

const server = useTestServer()

/** A category's goal as the category list shows it (the contract has no single read). */
async function goalOf(api: ApiClient, id: string) {
  const { items } = expectStatus(await api.get(`${H}/categories`), 200)
  return items.find((c: any) => c.id === id)?.goal
}

describe('category goals over HTTP', () => {
  it('creates a category without a goal as goal null', async () => {
    const { api } = await server.newOwner()
    const group = await createGroup(api, 'Bills')
    const rent = await createCategory(api, group.id, 'Rent')
    expect(rent.goal).toBeNull()
  })

  it('stores each goal type with cents as strings and reads it back in lists and single reads', async () => {
    const { api } = await server.newOwner()
    const group = await createGroup(api, 'Goals')
    const goals = [
      { given: { type: 'monthly', amountCents: 30000 }, shown: { type: 'monthly', amountCents: '30000' } },
      {
        given: { type: 'targetBalance', targetCents: '100000' },
        shown: { type: 'targetBalance', targetCents: '100000' },
      },
      {
        given: { type: 'targetBalanceByDate', targetCents: 120000, targetDate: '2026-12-31' },
        shown: { type: 'targetBalanceByDate', targetCents: '120000', targetDate: '2026-12-31' },
      },
      {
        given: { type: 'neededForSpending', amountCents: 120000, everyMonths: 12, dueDate: '2026-12-01' },
        shown: {
          type: 'neededForSpending',
          amountCents: '120000',
          everyMonths: 12,
          dueDate: '2026-12-01',
          fill: 'refill',
        },
      },
      {
        given: {
          type: 'neededForSpending',
          amountCents: 5000,
          everyMonths: 1,
          dueDate: '2026-01-31',
          fill: 'setAside',
        },
        shown: {
          type: 'neededForSpending',
          amountCents: '5000',
          everyMonths: 1,
          dueDate: '2026-01-31',
          fill: 'setAside',
        },
      },
    ]
    const ids: string[] = []
    for (const [i, { given, shown }] of goals.entries()) {
      const created = await createCategory(api, group.id, `Goal ${i}`, { goal: given })
      expect(created.goal).toEqual(shown)
      expect(await goalOf(api, created.id)).toEqual(shown)
      ids.push(created.id)
    }
    const list = expectStatus(await api.get(`${H}/categories`), 200)
    expect(list.items.map((c: any) => c.goal)).toEqual(goals.map((g) => g.shown))
  })

  it('replaces a goal whole on PATCH, keeps it when the body leaves it out, and removes it with null', async () => {
    const { api } = await server.newOwner()
    const group = await createGroup(api, 'Home')
    const repairs = await createCategory(api, group.id, 'Repairs', {
      goal: { type: 'monthly', amountCents: 1000 },
    })
    const changed = expectStatus(
      await api.patch(`${H}/categories/${repairs.id}`, {
        goal: { type: 'targetBalance', targetCents: 250000 },
      }),
      200,
    )
    expect(changed.goal).toEqual({ type: 'targetBalance', targetCents: '250000' })
    const renamed = expectStatus(
      await api.patch(`${H}/categories/${repairs.id}`, { name: 'Home repairs' }),
      200,
    )
    expect(renamed.goal).toEqual({ type: 'targetBalance', targetCents: '250000' })
    const cleared = expectStatus(await api.patch(`${H}/categories/${repairs.id}`, { goal: null }), 200)
    expect(cleared.goal).toBeNull()
    expect(await goalOf(api, repairs.id)).toBeNull()
  })

  it('refuses a bad goal with 400 naming the field, and changes nothing', async () => {
    const { api } = await server.newOwner()
    const group = await createGroup(api, 'Savings')
    const fund = await createCategory(api, group.id, 'Fund', { goal: { type: 'monthly', amountCents: 500 } })
    const bad: [unknown, string, string][] = [
      [{ type: 'weekly', amountCents: 100 }, 'goal.type', 'monthly, targetBalance'],
      [{ amountCents: 100 }, 'goal.type', 'monthly, targetBalance'],
      [{ type: 'monthly', amountCents: 0 }, 'goal.amountCents', 'more than zero'],
      [{ type: 'monthly', amountCents: -5 }, 'goal.amountCents', 'more than zero'],
      [{ type: 'monthly', amountCents: 1.5 }, 'goal.amountCents', 'whole number of cents'],
      [{ type: 'monthly' }, 'goal.amountCents', ''],
      [{ type: 'monthly', amountCents: 100, targetDate: '2026-01-01' }, 'goal', 'targetDate'],
      [
        { type: 'targetBalanceByDate', targetCents: 100, targetDate: '2026-02-30' },
        'goal.targetDate',
        'real calendar day',
      ],
      [
        { type: 'neededForSpending', amountCents: 100, everyMonths: 0, dueDate: '2026-01-01' },
        'goal.everyMonths',
        'at least 1',
      ],
      [
        {
          type: 'neededForSpending',
          amountCents: 100,
          everyMonths: 12,
          dueDate: '2026-01-01',
          fill: 'top up',
        },
        'goal.fill',
        'refill or setAside',
      ],
      ['monthly', 'goal', ''],
    ]
    for (const [goal, path, message] of bad) {
      const body = expectProblem(
        await api.patch(`${H}/categories/${fund.id}`, { goal }),
        400,
        'VALIDATION_FAILED',
      )
      const error = body.errors.find((e: any) => e.path === path || e.path?.startsWith(`${path}`))
      expect(error, JSON.stringify(body.errors)).toBeDefined()
      expect(JSON.stringify(body.errors)).toContain(message)
      expectProblem(
        await api.post(`${H}/categories`, { groupId: group.id, name: 'Other', goal }),
        400,
        'VALIDATION_FAILED',
      )
    }
    expect(await goalOf(api, fund.id)).toEqual({
      type: 'monthly',
      amountCents: '500',
    })
  })
})
