import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { type ApiClient, startTestServer, type TestMember, useTestServer } from '../src/index.ts'
import { createCategory, createGroup, expectProblem, expectStatus, H } from './catalog-fixture.ts'
import { createAccount, createTransaction } from './ledger-fixture.ts'
import { eventually, startReceiver } from './webhook-receiver.ts'

const server = useTestServer()

async function feed(api: ApiClient, query = '') {
  return expectStatus(await api.get(`/notifications${query}`), 200) as {
    items: any[]
    nextCursor: string | null
  }
}

async function waitForFeed(api: ApiClient, n: number, query = '') {
  return eventually(async () => {
    const page = await feed(api, query)
    return page.items.length >= n && page.items
  })
}

/** An owner and a member of one household, with an account to book on. */
async function household(): Promise<{ owner: TestMember; member: TestMember; accountId: string }> {
  const owner = await server.newOwner()
  const member = await server.newMember(owner)
  const account = await createAccount(owner.api)
  return { owner, member, accountId: account.id }
}

describe('notifications over HTTP', () => {
  it('tells the other members of a large transaction, not the member who made it, nor of a small one', async () => {
    const { owner, member, accountId } = await household()
    await createTransaction(member.api, accountId, { amountCents: -100 })
    const tx = await createTransaction(member.api, accountId, { amountCents: -75_000 })
    const [n] = await waitForFeed(owner.api, 1)
    expect(n).toMatchObject({
      householdId: owner.householdId,
      kind: 'large_transaction',
      title: 'Large transaction: -750.00',
      subject: { type: 'transaction', transactionId: tx.id, accountId },
      readAt: null,
      dismissedAt: null,
    })
    await sleep(1500)
    expect((await feed(owner.api)).items).toHaveLength(1)
    expect((await feed(member.api)).items).toHaveLength(0)
  })

  it('tells every member, the one who overspent too, of a budget overrun, linking the category and month', async () => {
    const { owner, member, accountId } = await household()
    const group = await createGroup(owner.api, 'Living')
    const food = await createCategory(owner.api, group.id, 'Food')
    await createTransaction(owner.api, accountId, {
      amountCents: -2000,
      categoryId: food.id,
      date: '2025-03-10',
    })
    for (const who of [owner, member]) {
      const items = await waitForFeed(who.api, 1)
      expect(items.find((n) => n.kind === 'budget_overrun')).toMatchObject({
        subject: { type: 'budgetCategory', categoryId: food.id, month: '2025-03' },
      })
    }
  })

  it('pages newest first; read is idempotent; mark-all-read and dismiss shape the default feed', async () => {
    const { owner, member, accountId } = await household()
    for (let i = 1; i <= 5; i++) await createTransaction(member.api, accountId, { amountCents: -60_000 - i })
    const all = await waitForFeed(owner.api, 5)
    expect(all.map((n) => n.title)).toEqual([5, 4, 3, 2, 1].map((i) => `Large transaction: -600.0${i}`))
    const first = await feed(owner.api, '?limit=2')
    expect(first.items).toHaveLength(2)
    const second = await feed(owner.api, `?limit=2&cursor=${first.nextCursor}`)
    const third = await feed(owner.api, `?limit=2&cursor=${second.nextCursor}`)
    expect([...first.items, ...second.items, ...third.items].map((n) => n.id)).toEqual(all.map((n) => n.id))
    expect(third.nextCursor).toBeNull()
    expectProblem(await owner.api.get('/notifications?cursor=bogus'), 400, 'INVALID_CURSOR')

    const read = expectStatus(await owner.api.post(`/notifications/${all[0].id}/read`), 200)
    expect(read.readAt).not.toBeNull()
    await sleep(5)
    expect(expectStatus(await owner.api.post(`/notifications/${all[0].id}/read`), 200).readAt).toBe(
      read.readAt,
    )
    expect((await feed(owner.api)).items).toHaveLength(4)
    expect((await feed(owner.api, '?includeRead=true')).items).toHaveLength(5)

    expectStatus(await owner.api.delete(`/notifications/${all[1].id}`), 204)
    expect((await feed(owner.api)).items).toHaveLength(3)
    expect((await feed(owner.api, '?includeRead=true&includeDismissed=true')).items).toHaveLength(5)

    expect(expectStatus(await owner.api.post('/notifications/mark-all-read'), 200)).toEqual({ marked: 4 })
    expect((await feed(owner.api)).items).toHaveLength(0)
    expect((await feed(owner.api, '?includeRead=true')).items).toHaveLength(4)

    // Another member's notification is not yours to read or dismiss.
    expectProblem(await member.api.post(`/notifications/${all[2].id}/read`), 404, 'NOT_FOUND')
    expectProblem(await member.api.delete(`/notifications/${all[2].id}`), 404, 'NOT_FOUND')
    const reader = await server.newMember(owner, 'member', ['read:notifications'])
    expectProblem(await reader.api.post('/notifications/mark-all-read'), 403, 'INSUFFICIENT_SCOPE')
  })

  it('seeds preferences on the first read and upserts them; refuses what does not fit, writing nothing', async () => {
    const { api } = await server.newOwner()
    const prefs = expectStatus(await api.get('/notifications/preferences'), 200)
    // Every kind on every channel: 9 kinds × 3 channels.
    expect(prefs.items).toHaveLength(27)
    expect(prefs.channels).toEqual([
      { channel: 'in_app', available: true },
      { channel: 'email', available: false },
      { channel: 'push', available: false },
    ])
    expect(prefs.items.find((p: any) => p.kind === 'large_transaction' && p.channel === 'in_app')).toEqual({
      kind: 'large_transaction',
      channel: 'in_app',
      enabled: true,
      lockScreenDetails: false,
      thresholdCents: '50000',
    })
    const put = expectStatus(
      await api.put('/notifications/preferences', {
        items: [
          { kind: 'budget_overrun', channel: 'push', enabled: true, lockScreenDetails: true },
          { kind: 'large_transaction', channel: 'in_app', enabled: true, thresholdCents: 100_000 },
        ],
      }),
      200,
    )
    expect(put.items.find((p: any) => p.kind === 'budget_overrun' && p.channel === 'push')).toMatchObject({
      enabled: true,
      lockScreenDetails: true,
    })
    for (const bad of [
      { kind: 'budget_overrun', channel: 'email', enabled: true, lockScreenDetails: true },
      { kind: 'no_such_kind', channel: 'in_app', enabled: true },
      { kind: 'budget_overrun', channel: 'sms', enabled: true },
      { kind: 'budget_overrun', channel: 'in_app', enabled: true, thresholdCents: 5 },
    ]) {
      expectProblem(
        await api.put('/notifications/preferences', {
          items: [{ kind: 'webhook_disabled', channel: 'in_app', enabled: false }, bad],
        }),
        400,
        'VALIDATION_FAILED',
      )
    }
    const after = expectStatus(await api.get('/notifications/preferences'), 200)
    expect(
      after.items.find((p: any) => p.kind === 'webhook_disabled' && p.channel === 'in_app').enabled,
    ).toBe(true)
    expect(after.items).toEqual(put.items)
  })

  it('follows each member’s preferences: a higher threshold, or the kind switched off', async () => {
    const { owner, member, accountId } = await household()
    const third = await server.newMember(owner)
    expectStatus(
      await owner.api.put('/notifications/preferences', {
        items: [{ kind: 'large_transaction', channel: 'in_app', enabled: true, thresholdCents: '100000' }],
      }),
      200,
    )
    expectStatus(
      await third.api.put('/notifications/preferences', {
        items: [
          { kind: 'large_transaction', channel: 'in_app', enabled: false },
          { kind: 'large_transaction', channel: 'push', enabled: false },
        ],
      }),
      200,
    )
    await createTransaction(member.api, accountId, { amountCents: 60_000 })
    await createTransaction(member.api, accountId, { amountCents: -150_000 })
    const items = await waitForFeed(owner.api, 1)
    await sleep(1200)
    expect((await feed(owner.api)).items.map((n) => n.title)).toEqual(['Large transaction: -1,500.00'])
    expect(items[0].title).toBe('Large transaction: -1,500.00')
    expect((await feed(third.api, '?includeDismissed=true')).items).toEqual([])
  })

  it('tells the owners, and only them, when the server disables a webhook', async () => {
    const { owner, member } = await household()
    const receiver = await startReceiver(() => ({ status: 410 }))
    const sub = expectStatus(
      await owner.api.post(`${H}/webhooks/subscriptions`, { url: receiver.url, eventTypes: ['*'] }),
      201,
    )
    expectStatus(await owner.api.post(`${H}/webhooks/subscriptions/${sub.id}/test`), 202)
    const [n] = await waitForFeed(owner.api, 1)
    expect(n).toMatchObject({
      kind: 'webhook_disabled',
      subject: { type: 'webhookSubscription', subscriptionId: sub.id },
    })
    expect(n.body).toContain('410')
    expect((await feed(member.api)).items).toEqual([])
  })

  it('generates each notification once with two server instances handling events', async () => {
    const second = await startTestServer()
    try {
      const { owner, member, accountId } = await household()
      for (let i = 0; i < 10; i++) await createTransaction(member.api, accountId, { amountCents: -80_000 })
      await waitForFeed(owner.api, 10)
      await sleep(1500)
      const items = (await feed(owner.api)).items
      expect(items).toHaveLength(10)
      expect(new Set(items.map((n) => n.eventId)).size).toBe(10)
    } finally {
      await second.close()
    }
  })
})
