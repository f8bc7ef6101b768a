import { localDate, SCOPES } from '@hearth/engine'
import { announcePriceChanges } from '@hearth/server'
import { describe, expect, it } from 'vitest'
import type { ApiClient } from '../src/index.ts'
import { useTestServer } from '../src/index.ts'
import { expectProblem, expectStatus, H } from './catalog-fixture.ts'

const server = useTestServer()

const today = localDate(new Date(), 'UTC')
function addDays(d: string, n: number): string {
  return new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10)
}
/** `day` of the month `k` months before today's. */
function monthsBack(k: number, day: number): string {
  const [y, m] = today.split('-').map(Number) as [number, number]
  const index = y * 12 + (m - 1) - k
  const year = Math.floor(index / 12)
  const month = (index % 12) + 1
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate()
  return `${year}-${String(month).padStart(2, '0')}-${String(Math.min(day, last)).padStart(2, '0')}`
}

/** A seeded generator, so a failing history replays. */
function random(seed: number) {
  let s = seed
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

interface Row {
  date: string
  amountCents: number
  payeeName: string
}

/** Three known subscriptions (one of which got dearer), a yearly bill and a pay cheque, in noise. */
function history(): Row[] {
  const rnd = random(26)
  const jitter = () => Math.round(rnd() * 4 - 2)
  const rows: Row[] = []
  for (let k = 0; k <= 14; k++) {
    const streamly = addDays(monthsBack(k, 6), jitter())
    if (streamly < addDays(today, -2) && k <= 14) {
      rows.push({ date: streamly, amountCents: k <= 3 ? -1_799 : -1_599, payeeName: 'Streamly' })
    }
    const tunes = addDays(monthsBack(k, 18), jitter())
    if (tunes < addDays(today, -2))
      rows.push({ date: tunes, amountCents: -999 - Math.round(rnd() * 40), payeeName: 'Tunes' })
  }
  for (let w = 1; w <= 30; w++) {
    rows.push({ date: addDays(today, -14 * w - 3), amountCents: 210_000, payeeName: 'Employer' })
  }
  rows.push({ date: addDays(today, -20), amountCents: -30_000, payeeName: 'Insurer' })
  rows.push({ date: addDays(today, -20 - 365), amountCents: -29_000, payeeName: 'Insurer' })
  for (let i = 0; i < 120; i++) {
    rows.push({
      date: addDays(today, -Math.floor(rnd() * 400) - 1),
      amountCents: -Math.floor(200 + rnd() * 9_000),
      payeeName: rnd() < 0.3 ? 'Coffee Corner' : `Shop ${Math.floor(rnd() * 25)}`,
    })
  }
  return rows
}

async function seed(api: ApiClient) {
  const account = expectStatus(await api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' }), 201).id
  const transactions = history().map((r) => ({ ...r, accountId: account }))
  expectStatus(await api.post(`${H}/transactions/bulk`, { transactions }), 201)
  return account
}

describe('recurrence suggestions over HTTP', () => {
  it('detects the known recurring charges in a noisy history, and only those', async () => {
    const { api } = await server.newOwner()
    await seed(api)
    const { items } = expectStatus(await api.get(`${H}/recurrences/suggestions`), 200)
    const found = items.map((s: any) => [s.name, s.frequency, s.amountCents, s.previousAmountCents])
    expect(found).toHaveLength(4)
    expect(found).toEqual(
      expect.arrayContaining([
        ['Streamly', 'monthly', '-1799', '-1599'],
        ['Tunes', 'monthly', expect.stringMatching(/^-10[0-3]\d$|^-99\d$/), null],
        ['Employer', 'biweekly', '210000', null],
        ['Insurer', 'yearly', '-30000', null],
      ]),
    )
    const streamly = items.find((s: any) => s.name === 'Streamly')
    expect(streamly).toMatchObject({ kind: 'recurring', dayOfMonth: 6, dismissed: false })
    expect(streamly.occurrences).toBeGreaterThanOrEqual(13)
    expect(streamly.nextDate >= today).toBe(true)
    // Recomputing gives the same keys.
    const again = expectStatus(await api.get(`${H}/recurrences/suggestions`), 200).items
    expect(again.map((s: any) => s.key)).toEqual(items.map((s: any) => s.key))
  })

  it('dismisses, undoes a dismissal, and accepts a detection as a recurrence of origin detected', async () => {
    const { api } = await server.newOwner()
    await seed(api)
    const items = expectStatus(await api.get(`${H}/recurrences/suggestions`), 200).items
    const tunes = items.find((s: any) => s.name === 'Tunes')
    const key = encodeURIComponent(tunes.key)
    expect((await api.post(`${H}/recurrences/suggestions/${key}/dismiss`)).status).toBe(204)
    expect((await api.post(`${H}/recurrences/suggestions/${key}/dismiss`)).status).toBe(204)
    const visible = expectStatus(await api.get(`${H}/recurrences/suggestions`), 200).items
    expect(visible.map((s: any) => s.key)).not.toContain(tunes.key)
    const all = expectStatus(await api.get(`${H}/recurrences/suggestions?includeDismissed=true`), 200).items
    expect(all.find((s: any) => s.key === tunes.key).dismissed).toBe(true)
    expect((await api.delete(`${H}/recurrences/suggestions/${key}/dismiss`)).status).toBe(204)
    expectProblem(await api.delete(`${H}/recurrences/suggestions/${key}/dismiss`), 404, 'NOT_FOUND')
    expectProblem(await api.post(`${H}/recurrences/suggestions/nope/dismiss`), 404, 'SUGGESTION_NOT_FOUND')

    const accepted = expectStatus(await api.post(`${H}/recurrences/suggestions/${key}/accept`), 200)
    expect(accepted.recurrence).toMatchObject({
      name: 'Tunes',
      origin: 'detected',
      frequency: 'monthly',
      dayOfMonth: 18,
      amountCents: tunes.amountCents,
      payeeId: tunes.payeeId,
      startDate: tunes.nextDate,
      nextRunDate: tunes.nextDate,
    })
    const after = expectStatus(await api.get(`${H}/recurrences/suggestions`), 200).items
    expect(after.map((s: any) => s.name)).not.toContain('Tunes')
    expectProblem(await api.post(`${H}/recurrences/suggestions/${key}/accept`), 404, 'SUGGESTION_NOT_FOUND')
  })

  it('finds a price change on a tracked recurrence, announces it once, and applies it on accept', async () => {
    const { api, householdId } = await server.newOwner()
    const account = expectStatus(await api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' }), 201).id
    const payee = expectStatus(await api.post(`${H}/payees`, { name: 'City Water' }), 201).id
    const water = expectStatus(
      await api.post(`${H}/recurrences`, {
        name: 'Water',
        accountId: account,
        amountCents: -3_000,
        payeeId: payee,
        frequency: 'monthly',
        dayOfMonth: 1,
        startDate: monthsBack(6, 1),
      }),
      201,
    )
    const charges = [
      [monthsBack(3, 1), -3_000],
      [monthsBack(2, 1), -3_000],
      [addDays(monthsBack(1, 1), 1), -3_300],
      [addDays(monthsBack(0, 1), -1), -3_300],
    ]
    for (const [date, amountCents] of charges) {
      expectStatus(
        await api.post(`${H}/transactions`, { accountId: account, date, amountCents, payeeId: payee }),
        201,
      )
    }
    const items = expectStatus(await api.get(`${H}/recurrences/suggestions`), 200).items
    expect(items).toEqual([
      expect.objectContaining({
        kind: 'priceChange',
        key: `price:${water.id}:-3300`,
        recurrenceId: water.id,
        amountCents: '-3300',
        previousAmountCents: '-3000',
      }),
    ])
    const actor = { actor: 'system' as const, scopes: SCOPES, now: new Date() }
    expect(await announcePriceChanges(server.store, actor)).toMatchObject({ announced: expect.any(Number) })
    await announcePriceChanges(server.store, actor)
    const events = await server.store.db
      .selectFrom('outbox')
      .select('payload')
      .where('household_id', '=', householdId)
      .execute()
    const announced = events.map((e) => e.payload as any).filter((p) => p.type === 'recurrence.priceChanged')
    expect(announced).toHaveLength(1)
    expect(announced[0].data).toMatchObject({
      recurrenceId: water.id,
      scheduledAmountCents: '-3000',
      observedAmountCents: '-3300',
    })
    const accepted = expectStatus(
      await api.post(`${H}/recurrences/suggestions/${encodeURIComponent(items[0].key)}/accept`),
      200,
    )
    expect(accepted).toMatchObject({
      kind: 'priceChange',
      recurrence: { id: water.id, amountCents: '-3300' },
    })
    expect(expectStatus(await api.get(`${H}/recurrences/suggestions`), 200).items).toEqual([])
  })
})
