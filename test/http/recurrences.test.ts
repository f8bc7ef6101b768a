import { localDate } from '@hearth/engine'
import { describe, expect, it } from 'vitest'
import type { ApiClient } from '../src/index.ts'
import { useTestServer } from '../src/index.ts'
import { expectProblem, expectStatus, H } from './catalog-fixture.ts'

const server = useTestServer()

/** The household's today (households start in UTC), and a day `n` days from it. */
const today = () => localDate(new Date(), 'UTC')
function day(n: number): string {
  return new Date(Date.parse(`${today()}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10)
}

async function account(api: ApiClient, extra: Record<string, unknown> = {}) {
  return expectStatus(await api.post(`${H}/accounts`, { name: 'Checking', type: 'cash', ...extra }), 201)
}

async function recurrenceCount(api: ApiClient) {
  return expectStatus(await api.get(`${H}/recurrences`), 200).items.length
}

describe('recurrences over HTTP', () => {
  it('creates, reads, lists, updates and soft-deletes a recurrence', async () => {
    const { api } = await server.newOwner()
    const checking = await account(api)
    const body = {
      name: 'Rent',
      accountId: checking.id,
      amountCents: -150_000,
      currency: 'USD',
      frequency: 'monthly',
      dayOfMonth: 31,
      startDate: '2024-01-31',
    }
    const created = expectStatus(await api.post(`${H}/recurrences`, body), 201)
    expect(created).toMatchObject({
      name: 'Rent',
      accountId: checking.id,
      amountCents: '-150000',
      currency: 'USD',
      frequency: 'monthly',
      interval: 1,
      dayOfMonth: 31,
      startDate: '2024-01-31',
      status: 'active',
      origin: 'manual',
      lastRunDate: null,
      externalIdPrefix: `recurrence:${created.id}:`,
    })
    // The next run is the month's last day, from today on.
    const [y, m] = today().split('-').map(Number) as [number, number]
    const last = new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10)
    expect(created.nextRunDate).toBe(last)
    expect(expectStatus(await api.get(`${H}/recurrences/${created.id}`), 200)).toEqual(created)
    expect(expectStatus(await api.get(`${H}/recurrences`), 200).items).toEqual([created])

    const weekly = expectStatus(
      await api.patch(`${H}/recurrences/${created.id}`, {
        frequency: 'weekly',
        weekday: 'monday',
        amountCents: -500,
      }),
      200,
    )
    expect(weekly).toMatchObject({
      frequency: 'weekly',
      weekday: 'monday',
      dayOfMonth: null,
      amountCents: '-500',
    })
    expect(new Date(`${weekly.nextRunDate}T00:00:00Z`).getUTCDay()).toBe(1)
    expect(weekly.nextRunDate >= today()).toBe(true)

    expect((await api.delete(`${H}/recurrences/${created.id}`)).status).toBe(204)
    expectProblem(await api.get(`${H}/recurrences/${created.id}`), 404, 'NOT_FOUND')
    expect(await recurrenceCount(api)).toBe(0)
  })

  it('refuses bad schedules and targets naming the field, and writes nothing', async () => {
    const { api } = await server.newOwner()
    const checking = await account(api)
    const base = {
      name: 'Bill',
      accountId: checking.id,
      amountCents: -100,
      frequency: 'monthly',
      startDate: '2025-01-10',
    }
    const field = async (body: object, status: number, code: string) =>
      expectProblem(await api.post(`${H}/recurrences`, { ...base, ...body }), status, code).errors?.[0]?.path
    expect(await field({ dayOfMonth: 32 }, 400, 'VALIDATION_FAILED')).toBe('dayOfMonth')
    expect(await field({ dayOfMonth: 0 }, 400, 'VALIDATION_FAILED')).toBe('dayOfMonth')
    expect(await field({ frequency: 'fortnightly' }, 400, 'VALIDATION_FAILED')).toBe('frequency')
    expect(await field({ endDate: '2025-01-09' }, 400, 'INVALID_SCHEDULE')).toBe('endDate')
    expect(await field({ endDate: '2025-03-01', count: 2 }, 400, 'INVALID_SCHEDULE')).toBe('count')
    expect(await field({ frequency: 'weekly', dayOfMonth: 3 }, 400, 'INVALID_SCHEDULE')).toBe('dayOfMonth')
    expect(await field({ endDate: '2025-01-12', dayOfMonth: 20 }, 400, 'SCHEDULE_NEVER_OCCURS')).toBe(
      'endDate',
    )
    expect(await field({ currency: 'EUR' }, 422, 'CURRENCY_MISMATCH')).toBe('currency')
    expect(await field({ accountId: '01JAAAAAAAAAAAAAAAAAAAAAAA' }, 404, 'NOT_FOUND')).toBe('accountId')
    const closed = await account(api, { name: 'Old' })
    expectStatus(await api.post(`${H}/accounts/${closed.id}/close`, {}), 200)
    const refusal = expectProblem(
      await api.post(`${H}/recurrences`, { ...base, accountId: closed.id }),
      409,
      'ACCOUNT_CLOSED',
    )
    expect(refusal.path).toBe('accountId')
    const other = await server.newOwner()
    const foreign = await account(other.api)
    expect(await field({ accountId: foreign.id }, 404, 'NOT_FOUND')).toBe('accountId')
    expect(await recurrenceCount(api)).toBe(0)
  })

  it('makes February 30th yearly the last day of February', async () => {
    const { api } = await server.newOwner()
    const checking = await account(api)
    const r = expectStatus(
      await api.post(`${H}/recurrences`, {
        name: 'Insurance',
        accountId: checking.id,
        amountCents: -60_000,
        frequency: 'yearly',
        dayOfMonth: 30,
        startDate: '2027-02-01',
      }),
      201,
    )
    expect(r.nextRunDate).toBe('2027-02-28')
    const leap = expectStatus(await api.patch(`${H}/recurrences/${r.id}`, { startDate: '2028-02-01' }), 200)
    expect(leap.nextRunDate).toBe('2028-02-29')
  })

  it('pauses and resumes; materialize-now books one row per occurrence, however often it is called', async () => {
    const { api } = await server.newOwner()
    const checking = await account(api)
    const r = expectStatus(
      await api.post(`${H}/recurrences`, {
        name: 'Gym',
        accountId: checking.id,
        amountCents: -2_500,
        frequency: 'daily',
        startDate: today(),
      }),
      201,
    )
    expect(r.nextRunDate).toBe(today())
    const paused = expectStatus(await api.post(`${H}/recurrences/${r.id}/pause`), 200)
    expect(paused.status).toBe('paused')
    expect(expectStatus(await api.post(`${H}/recurrences/${r.id}/pause`), 200).status).toBe('paused')
    expectProblem(await api.post(`${H}/recurrences/${r.id}/materialize-now`), 409, 'RECURRENCE_PAUSED')
    const resumed = expectStatus(await api.post(`${H}/recurrences/${r.id}/resume`), 200)
    expect(resumed).toMatchObject({ status: 'active', nextRunDate: today() })
    expectProblem(await api.post(`${H}/recurrences/${r.id}/resume`), 409, 'RECURRENCE_NOT_PAUSED')

    const first = expectStatus(await api.post(`${H}/recurrences/${r.id}/materialize-now`), 200)
    expect(first).toMatchObject({ date: today(), created: true })
    expect(first.transaction).toMatchObject({
      accountId: checking.id,
      date: today(),
      amountCents: '-2500',
      source: 'recurring',
      status: 'pending',
      externalId: `recurrence:${r.id}:${today()}`,
    })
    const again = expectStatus(await api.post(`${H}/recurrences/${r.id}/materialize-now`), 200)
    expect(again).toMatchObject({ date: today(), created: false })
    expect(again.transaction.id).toBe(first.transaction.id)
    const byDate = expectStatus(
      await api.post(`${H}/recurrences/${r.id}/materialize-now`, { date: today() }),
      200,
    )
    expect(byDate.created).toBe(false)
    expectProblem(
      await api.post(`${H}/recurrences/${r.id}/materialize-now`, { date: day(-400) }),
      422,
      'NOT_AN_OCCURRENCE',
    )
    const rows = expectStatus(await api.get(`${H}/transactions?source=recurring`), 200).items
    expect(rows.map((t: any) => t.id)).toEqual([first.transaction.id])
    const after = expectStatus(await api.get(`${H}/recurrences/${r.id}`), 200)
    expect(after).toMatchObject({ lastRunDate: today(), nextRunDate: day(1) })
    const account2 = expectStatus(await api.get(`${H}/accounts/${checking.id}`), 200)
    expect(account2.balanceCents).toBe('-2500')
  })

  it('lists what is coming in date order with a projected balance per account', async () => {
    const { api } = await server.newOwner()
    const checking = await account(api, { openingBalanceCents: 10_000 })
    const card = await account(api, { name: 'Card', type: 'credit', paymentDueDay: Number(day(5).slice(8)) })
    expect(card.paymentDueDay).toBe(Number(day(5).slice(8)))
    expectStatus(
      await api.post(`${H}/transactions`, { accountId: card.id, date: day(-1), amountCents: -4_000 }),
      201,
    )
    expectStatus(
      await api.post(`${H}/transactions`, {
        accountId: checking.id,
        date: day(3),
        amountCents: -3_000,
        memo: 'Later',
      }),
      201,
    )
    const weekly = expectStatus(
      await api.post(`${H}/recurrences`, {
        name: 'Allowance',
        accountId: checking.id,
        amountCents: -4_000,
        frequency: 'weekly',
        startDate: day(2),
      }),
      201,
    )
    const upcoming = expectStatus(await api.get(`${H}/recurrences/upcoming?days=10`), 200)
    expect(upcoming).toMatchObject({ fromDate: today(), toDate: day(9) })
    const items = upcoming.items.map((i: any) => [i.kind, i.date, i.amountCents, i.projectedBalanceCents])
    expect(items).toEqual([
      ['occurrence', day(2), '-4000', '6000'],
      ['futureTransaction', day(3), '-3000', '3000'],
      ['cardPaymentDue', day(5), '4000', '-4000'],
      ['occurrence', day(9), '-4000', '-1000'],
    ])
    expect(upcoming.items[0].recurrenceId).toBe(weekly.id)
    const defaults = expectStatus(await api.get(`${H}/recurrences/upcoming`), 200)
    expect(defaults.toDate).toBe(day(29))
    expectProblem(await api.get(`${H}/recurrences/upcoming?days=367`), 400, 'VALIDATION_FAILED')
  })
})
