import { setTimeout as sleep } from 'node:timers/promises'
import { localDate, SCOPES } from '@hearth/engine'
import { announceBillsDueSoon, announceLowBalances, announcePriceChanges } from '@hearth/server'
import { describe, expect, it } from 'vitest'
import { type ApiClient, startTestServer, useTestServer } from '../src/index.ts'
import { expectStatus, H } from './catalog-fixture.ts'
import { eventually } from './webhook-receiver.ts'

const server = useTestServer()

function addDays(d: string, n: number): string {
  return new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10)
}
const today = () => localDate(new Date(), 'UTC')
/** `day` of the month `k` months before today's. */
function monthsBack(k: number, day: number): string {
  const [y, m] = today().split('-').map(Number) as [number, number]
  const index = y * 12 + (m - 1) - k
  const year = Math.floor(index / 12)
  const month = (index % 12) + 1
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate()
  return `${year}-${String(month).padStart(2, '0')}-${String(Math.min(day, last)).padStart(2, '0')}`
}
const actor = () => ({ actor: 'system' as const, scopes: SCOPES, now: new Date() })

async function feed(api: ApiClient): Promise<any[]> {
  return expectStatus(await api.get('/notifications?includeRead=true&includeDismissed=true'), 200).items
}
async function feedOf(api: ApiClient, kind: string, n: number): Promise<any[]> {
  return eventually(async () => {
    const items = (await feed(api)).filter((x) => x.kind === kind)
    return items.length >= n && items
  })
}

/** A monthly recurrence whose first occurrence is `startDate`. */
async function recurrence(
  api: ApiClient,
  accountId: string,
  name: string,
  amountCents: number,
  startDate: string,
) {
  return expectStatus(
    await api.post(`${H}/recurrences`, {
      name,
      accountId,
      amountCents,
      frequency: 'monthly',
      dayOfMonth: Number(startDate.slice(8)),
      startDate,
    }),
    201,
  )
}

describe('notifications from recurrences', () => {
  it('tells every member once of a bill due in the next three days, as their preferences allow', async () => {
    const owner = await server.newOwner()
    const member = await server.newMember(owner)
    const quiet = await server.newMember(owner)
    expectStatus(
      await quiet.api.put('/notifications/preferences', {
        items: [{ kind: 'bill_due_soon', channel: 'in_app', enabled: false }],
      }),
      200,
    )
    const account = expectStatus(
      await owner.api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' }),
      201,
    )
    const due = addDays(today(), 2)
    const rent = await recurrence(owner.api, account.id, 'Rent', -120_000, due)
    // Income is no bill, and a bill ten days away is not due soon.
    await recurrence(owner.api, account.id, 'Salary', 300_000, addDays(today(), 1))
    await recurrence(owner.api, account.id, 'Gym', -4_000, addDays(today(), 10))

    const first = await announceBillsDueSoon(server.store, actor())
    expect(first.announced).toBeGreaterThanOrEqual(1)
    await announceBillsDueSoon(server.store, actor())

    for (const who of [owner, member]) {
      const [n, ...more] = await feedOf(who.api, 'bill_due_soon', 1)
      expect(more).toEqual([])
      expect(n).toMatchObject({
        householdId: owner.householdId,
        kind: 'bill_due_soon',
        title: `Rent is due ${due}`,
        body: `Rent: 1,200.00 is due on ${due}.`,
        subject: { type: 'recurrence', recurrenceId: rent.id, accountId: account.id, date: due },
        readAt: null,
        dismissedAt: null,
      })
    }
    // Give the worker time to make anything more it (wrongly) would.
    await sleep(1500)
    for (const who of [owner, member]) expect(await feedOf(who.api, 'bill_due_soon', 1)).toHaveLength(1)
    expect((await feed(quiet.api)).filter((x) => x.kind === 'bill_due_soon')).toEqual([])

    // One event, for the webhook receivers too.
    const events = await server.store.db
      .selectFrom('outbox')
      .select('payload')
      .where('household_id', '=', owner.householdId)
      .execute()
    const announced = events.map((e) => e.payload as any).filter((p) => p.type === 'recurrence.dueSoon')
    expect(announced.map((e) => e.data)).toEqual([
      { recurrenceId: rent.id, name: 'Rent', accountId: account.id, date: due, amountCents: '-120000' },
    ])
  })

  it('does not announce a paused bill, nor one already booked', async () => {
    const owner = await server.newOwner()
    const account = expectStatus(
      await owner.api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' }),
      201,
    )
    const paused = await recurrence(owner.api, account.id, 'Paused', -1_000, addDays(today(), 1))
    expectStatus(await owner.api.post(`${H}/recurrences/${paused.id}/pause`), 200)
    const booked = await recurrence(owner.api, account.id, 'Water', -3_000, addDays(today(), 1))
    expectStatus(await owner.api.post(`${H}/recurrences/${booked.id}/materialize-now`), 200)
    await announceBillsDueSoon(server.store, actor())
    await sleep(1500)
    expect((await feed(owner.api)).filter((x) => x.kind === 'bill_due_soon')).toEqual([])
  })

  it('tells every member once of a price change on a tracked recurrence, unless they turned it off', async () => {
    const owner = await server.newOwner()
    const member = await server.newMember(owner)
    const quiet = await server.newMember(owner)
    expectStatus(
      await quiet.api.put('/notifications/preferences', {
        items: [{ kind: 'recurrence_price_change', channel: 'in_app', enabled: false }],
      }),
      200,
    )
    const account = expectStatus(
      await owner.api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' }),
      201,
    ).id
    const payee = expectStatus(await owner.api.post(`${H}/payees`, { name: 'City Water' }), 201).id
    const water = expectStatus(
      await owner.api.post(`${H}/recurrences`, {
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
    ] as const
    for (const [date, amountCents] of charges) {
      expectStatus(
        await owner.api.post(`${H}/transactions`, { accountId: account, date, amountCents, payeeId: payee }),
        201,
      )
    }
    await announcePriceChanges(server.store, actor())
    await announcePriceChanges(server.store, actor())
    for (const who of [owner, member]) {
      const [n] = await feedOf(who.api, 'recurrence_price_change', 1)
      expect(n).toMatchObject({
        householdId: owner.householdId,
        title: 'Water changed price',
        body: 'Water was charged 33.00 twice, not the scheduled 30.00.',
        subject: { type: 'recurrence', recurrenceId: water.id },
      })
    }
    await sleep(1500)
    for (const who of [owner, member])
      expect(await feedOf(who.api, 'recurrence_price_change', 1)).toHaveLength(1)
    expect((await feed(quiet.api)).filter((x) => x.kind === 'recurrence_price_change')).toEqual([])
  })

  it('tells every current member once when a cash account is forecast below zero within 14 days, again for an earlier day', async () => {
    const owner = await server.newOwner()
    const member = await server.newMember(owner)
    const quiet = await server.newMember(owner)
    const leaver = await server.newMember(owner)
    expectStatus(
      await quiet.api.put('/notifications/preferences', {
        items: [{ kind: 'low_balance_ahead', channel: 'in_app', enabled: false }],
      }),
      200,
    )
    const account = (name: string, type: string, openingBalanceCents: number) =>
      owner.api
        .post(`${H}/accounts`, { name, type, openingBalanceCents, openingBalanceDate: today() })
        .then((res) => expectStatus(res, 201))
    const checking = await account('Checking', 'cash', 50_000)
    // Enough money for its bill; a card's balance is what it owes; already below zero is no news.
    const savings = await account('Savings', 'cash', 500_000)
    const card = await account('Card', 'credit', 0)
    const overdrawn = await account('Overdrawn', 'cash', -1_000)
    await recurrence(owner.api, checking.id, 'Rent', -120_000, addDays(today(), 5))
    await recurrence(owner.api, checking.id, 'Salary', 100_000, addDays(today(), 8))
    await recurrence(owner.api, savings.id, 'Insurance', -20_000, addDays(today(), 3))
    await recurrence(owner.api, card.id, 'Streaming', -1_500, addDays(today(), 3))
    await recurrence(owner.api, overdrawn.id, 'Fees', -500, addDays(today(), 3))
    // Nor is a shortfall past the horizon.
    await recurrence(owner.api, savings.id, 'Car', -900_000, addDays(today(), 20))
    expectStatus(await owner.api.delete(`${H}/members/${leaver.userId}`), 204)

    // Two runs at once, and again, with a second server instance handling events beside this one.
    const second = await startTestServer()
    try {
      await Promise.all([
        announceLowBalances(server.store, actor()),
        announceLowBalances(server.store, actor()),
      ])
      await announceLowBalances(server.store, actor())
      const rent = addDays(today(), 5)
      for (const who of [owner, member]) {
        const [n, ...more] = await feedOf(who.api, 'low_balance_ahead', 1)
        expect(more).toEqual([])
        expect(n).toMatchObject({
          householdId: owner.householdId,
          kind: 'low_balance_ahead',
          title: `Checking may fall below zero on ${rent}`,
          body: `Checking is forecast at -700.00 ${checking.currency} on ${rent}, after what is scheduled until then.`,
          subject: { type: 'account', accountId: checking.id, date: rent },
          readAt: null,
          dismissedAt: null,
        })
      }
      await sleep(1500)
      for (const who of [owner, member]) expect(await feedOf(who.api, 'low_balance_ahead', 1)).toHaveLength(1)
      expect((await feed(quiet.api)).filter((x) => x.kind === 'low_balance_ahead')).toEqual([])
      const left = await server.store.db
        .selectFrom('notifications')
        .select('id')
        .where('user_id', '=', leaver.userId)
        .where('kind', '=', 'low_balance_ahead')
        .execute()
      expect(left).toEqual([])

      // A row that brings the shortfall forward is a new crossing day, told once more.
      const early = addDays(today(), 2)
      expectStatus(
        await owner.api.post(`${H}/transactions`, {
          accountId: checking.id,
          date: early,
          amountCents: -60_000,
        }),
        201,
      )
      await announceLowBalances(server.store, actor())
      await announceLowBalances(server.store, actor())
      const [latest] = await feedOf(owner.api, 'low_balance_ahead', 2)
      expect(latest).toMatchObject({
        title: `Checking may fall below zero on ${early}`,
        subject: { type: 'account', accountId: checking.id, date: early },
      })

      const events = await server.store.db
        .selectFrom('outbox')
        .select('payload')
        .where('household_id', '=', owner.householdId)
        .orderBy('id')
        .execute()
      const announced = events
        .map((e) => e.payload as any)
        .filter((p) => p.type === 'account.lowBalanceAhead')
        .map((p) => p.data)
      expect(announced).toEqual([
        {
          accountId: checking.id,
          name: 'Checking',
          currency: checking.currency,
          date: rent,
          projectedBalanceCents: '-70000',
        },
        {
          accountId: checking.id,
          name: 'Checking',
          currency: checking.currency,
          date: early,
          projectedBalanceCents: '-10000',
        },
      ])
    } finally {
      await second.close()
    }
  })
})
