import { localDate } from '@hearth/engine'
import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { createCategory, createGroup, expectProblem, expectStatus, H } from './catalog-fixture.ts'

const server = useTestServer()

const today = localDate(new Date(), 'UTC')
const thisMonth = today.slice(0, 7)
function month(k: number): string {
  const [y, m] = thisMonth.split('-').map(Number) as [number, number]
  const index = y * 12 + (m - 1) + k
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`
}
function lastDay(m: string): string {
  const [y, mm] = m.split('-').map(Number) as [number, number]
  return `${m}-${String(new Date(Date.UTC(y, mm, 0)).getUTCDate()).padStart(2, '0')}`
}

describe('forecasts over HTTP', () => {
  it('answers a past month with its actual spending per category', async () => {
    const { api } = await server.newOwner()
    const group = await createGroup(api, 'Everyday')
    const food = await createCategory(api, group.id, 'Food')
    const fun = await createCategory(api, group.id, 'Fun')
    const checking = expectStatus(await api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' }), 201).id
    const savings = expectStatus(await api.post(`${H}/accounts`, { name: 'Savings', type: 'cash' }), 201).id
    const past = month(-2)
    const rows = [
      { date: `${past}-03`, amountCents: -4_000, categoryId: food.id },
      { date: `${past}-09`, amountCents: 500, categoryId: food.id },
      {
        date: `${past}-12`,
        amountCents: -3_000,
        splits: [
          { amountCents: -1_000, categoryId: food.id },
          { amountCents: -2_000, categoryId: fun.id },
        ],
      },
    ]
    for (const r of rows)
      expectStatus(await api.post(`${H}/transactions`, { accountId: checking, ...r }), 201)
    expectStatus(
      await api.post(`${H}/transactions/transfer`, {
        fromAccountId: checking,
        toAccountId: savings,
        date: `${past}-15`,
        amountCents: 10_000,
      }),
      201,
    )
    const forecast = expectStatus(await api.get(`${H}/forecasts/${past}`), 200)
    expect(forecast).toMatchObject({ month: past, period: 'past', asOf: null })
    expect(forecast.categories).toEqual(
      [
        {
          categoryId: food.id,
          actualCents: '4500',
          scheduledCents: '0',
          projectedCents: '0',
          totalCents: '4500',
        },
        {
          categoryId: fun.id,
          actualCents: '2000',
          scheduledCents: '0',
          projectedCents: '0',
          totalCents: '2000',
        },
      ].sort((a, b) => (a.categoryId < b.categoryId ? -1 : 1)),
    )
    expect(forecast.totals).toEqual({
      actualCents: '6500',
      scheduledCents: '0',
      projectedCents: '0',
      totalCents: '6500',
    })
    expect(forecast.refinement).toEqual({ requested: false, applied: false, reason: null })
  })

  it('adds scheduled occurrences and a projection from trailing months to the current month', async () => {
    const { api } = await server.newOwner()
    const group = await createGroup(api, 'Everyday')
    const food = await createCategory(api, group.id, 'Food')
    const bills = await createCategory(api, group.id, 'Bills')
    const checking = expectStatus(await api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' }), 201).id
    // Food after the cut day in the trailing months: 3,000, 6,000 and 9,000; the mean is 6,000.
    for (const [k, cents] of [
      [-1, 3_000],
      [-2, 6_000],
      [-3, 9_000],
    ] as const) {
      const res = await api.post(`${H}/transactions`, {
        accountId: checking,
        date: lastDay(month(k)),
        amountCents: -cents,
        categoryId: food.id,
      })
      expectStatus(res, 201)
    }
    expectStatus(
      await api.post(`${H}/transactions`, {
        accountId: checking,
        date: `${thisMonth}-01`,
        amountCents: -1_234,
        categoryId: food.id,
      }),
      201,
    )
    const r = expectStatus(
      await api.post(`${H}/recurrences`, {
        name: 'Daily bill',
        accountId: checking,
        amountCents: -100,
        categoryId: bills.id,
        frequency: 'daily',
        startDate: today,
      }),
      201,
    )
    expect(r.nextRunDate).toBe(today)
    const isLastDay = today === lastDay(thisMonth)
    const daysLeft = Number(lastDay(thisMonth).slice(8)) - Number(today.slice(8))

    const forecast = expectStatus(await api.get(`${H}/forecasts/${thisMonth}`), 200)
    expect(forecast).toMatchObject({ month: thisMonth, period: 'current', asOf: today })
    const byId = new Map(forecast.categories.map((c: any) => [c.categoryId, c]))
    const projected = isLastDay ? 0 : 6_000
    expect(byId.get(food.id)).toEqual({
      categoryId: food.id,
      actualCents: '1234',
      scheduledCents: '0',
      projectedCents: String(projected),
      totalCents: String(1_234 + projected),
    })
    // Today's occurrence is not booked yet, so it counts as scheduled with the rest of the month.
    expect(byId.get(bills.id)).toMatchObject({
      scheduledCents: String(100 * (daysLeft + 1)),
      actualCents: '0',
    })

    const refined = expectStatus(await api.get(`${H}/forecasts/${thisMonth}?refine=true`), 200)
    expect(refined.refinement).toMatchObject({ requested: true, applied: false, reason: expect.any(String) })
    expect(refined.categories).toEqual(forecast.categories)
    expect(refined.totals).toEqual(forecast.totals)

    const future = expectStatus(await api.get(`${H}/forecasts/${month(1)}`), 200)
    expect(future.period).toBe('future')
    expect(new Map(future.categories.map((c: any) => [c.categoryId, c])).get(bills.id)).toMatchObject({
      scheduledCents: String(100 * Number(lastDay(month(1)).slice(8))),
    })
    expectProblem(await api.get(`${H}/forecasts/2025-13`), 400, 'VALIDATION_FAILED')
    expectProblem(await api.get(`${H}/forecasts/${thisMonth}?refine=maybe`), 400, 'VALIDATION_FAILED')
  })
})
