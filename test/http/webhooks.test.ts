import { setTimeout as sleep } from 'node:timers/promises'
import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { startTestServer, useTestServer } from '../src/index.ts'
import { expectProblem, expectStatus, H } from './catalog-fixture.ts'
import { createAccount, createTransaction } from './ledger-fixture.ts'
import { eventually, startReceiver } from './webhook-receiver.ts'

const server = useTestServer({
  webhooks: {
    allowPrivate: true,
    secretKey: 'test-webhook-key',
    timeoutMs: 2000,
    retryScheduleMs: [100, 200, 400],
    // A name the test resolves itself, never the network.
    lookup: async (host) =>
      host === 'metadata.test'
        ? [{ address: '169.254.169.254', family: 4 }]
        : [{ address: '127.0.0.1', family: 4 }],
  },
})
const SUBS = `${H}/webhooks/subscriptions`

async function subscribe(api: any, url: string, eventTypes: string[] = ['tag.created']) {
  return expectStatus(await api.post(SUBS, { url, eventTypes }), 201)
}

async function deliveries(api: any, subId: string) {
  return expectStatus(await api.get(`${SUBS}/${subId}/deliveries?limit=100`), 200).items as any[]
}

describe('webhooks over HTTP', () => {
  it('shows the whsec_ secret once, at creation, and never in lists', async () => {
    const { api } = await server.newOwner()
    const sub = await subscribe(api, 'http://127.0.0.1:9/hook', ['transaction.created', 'budget.overrun'])
    expect(sub.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(sub).toMatchObject({ status: 'active', eventTypes: ['transaction.created', 'budget.overrun'] })
    const list = expectStatus(await api.get(SUBS), 200)
    expect(list.items).toHaveLength(1)
    expect(JSON.stringify(list)).not.toContain('whsec_')
    // At rest the secret is sealed, not readable from a dump.
    const row = await server.store.db
      .selectFrom('webhook_subscriptions')
      .select('secret_sealed')
      .where('id', '=', sub.id)
      .executeTakeFirstOrThrow()
    expect(row.secret_sealed).not.toContain(sub.secret.slice(6))
    expect(row.secret_sealed).toMatch(/^v1:/)
  })

  it('refuses bad URLs with 422 naming why, and unknown event types listing the valid ones', async () => {
    const { api } = await server.newOwner()
    const refused = [
      'ftp://example.com/hook',
      'https://user:pw@example.com/hook',
      'http://metadata.test/latest',
      'http://169.254.169.254/latest',
    ]
    for (const url of refused) {
      const problem = expectProblem(
        await api.post(SUBS, { url, eventTypes: ['*'] }),
        422,
        'WEBHOOK_URL_REFUSED',
      )
      expect(problem.detail.length).toBeGreaterThan(10)
    }
    expect(
      expectProblem(
        await api.post(SUBS, { url: 'http://metadata.test/', eventTypes: ['*'] }),
        422,
        'WEBHOOK_URL_REFUSED',
      ).detail,
    ).toContain('169.254.169.254')
    const unknown = expectProblem(
      await api.post(SUBS, { url: 'http://127.0.0.1:9/', eventTypes: ['transaction.made'] }),
      400,
      'VALIDATION_FAILED',
    )
    expect(unknown.errors[0].message).toContain('transaction.created')
    expectProblem(
      await api.post(SUBS, { url: 'http://127.0.0.1:9/', eventTypes: [] }),
      400,
      'VALIDATION_FAILED',
    )
    expect(expectStatus(await api.get(SUBS), 200).items).toEqual([])
  })

  it('delivers transaction.created as {type, timestamp, data}, signed per Standard Webhooks', async () => {
    const receiver = await startReceiver()
    const { api } = await server.newOwner()
    const sub = await subscribe(api, receiver.url, ['transaction.created'])
    const account = await createAccount(api)
    const tx = await createTransaction(api, account.id, { amountCents: -4200 })
    const [got] = await receiver.waitFor(1)
    receiver.verifyAll(sub.secret)
    expect(got!.id).toMatch(/^evt_/)
    expect(got!.payload).toEqual({
      type: 'transaction.created',
      timestamp: expect.any(String),
      data: { transaction: expect.objectContaining({ id: tx.id, amountCents: '-4200' }) },
    })
    const log = await eventually(async () => {
      const items = await deliveries(api, sub.id)
      return items[0]?.status === 'succeeded' && items
    })
    expect(log[0]).toMatchObject({
      eventId: got!.id,
      eventType: 'transaction.created',
      attempts: 1,
      responseStatus: 200,
      responseSnippet: 'ok',
      nextAttemptAt: null,
      latencyMs: expect.any(Number),
    })
  })

  it('signs with both secrets for a day after a rotation', async () => {
    const receiver = await startReceiver()
    const { api } = await server.newOwner()
    const sub = await subscribe(api, receiver.url)
    const rotated = expectStatus(await api.post(`${SUBS}/${sub.id}/rotate-secret`), 200)
    expect(rotated.secret).toMatch(/^whsec_/)
    expect(rotated.secret).not.toBe(sub.secret)
    expect(Date.parse(rotated.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23 * 3_600_000)
    expect(expectStatus(await api.post(`${H}/tags`, { name: 'Rotated' }), 201))
    const [got] = await receiver.waitFor(1)
    expect(got!.signature.split(' ')).toHaveLength(2)
    receiver.verifyAll(sub.secret)
    receiver.verifyAll(rotated.secret)
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(got!.body, {
        'webhook-id': got!.id,
        'webhook-timestamp': got!.timestamp,
        'webhook-signature': got!.signature,
      }),
    ).toThrow()
  })

  it('retries a failing receiver and delivers exactly once more after it recovers', async () => {
    const receiver = await startReceiver((n) => (n < 2 ? { status: 500, body: 'down' } : { status: 204 }))
    const { api } = await server.newOwner()
    const sub = await subscribe(api, receiver.url)
    expectStatus(await api.post(`${H}/tags`, { name: 'Flaky' }), 201)
    const got = await receiver.waitFor(3)
    expect(new Set(got.map((r) => r.id)).size).toBe(1)
    receiver.verifyAll(sub.secret)
    const [entry] = await eventually(async () => {
      const items = await deliveries(api, sub.id)
      return items[0]?.status === 'succeeded' && items
    })
    expect(entry).toMatchObject({ attempts: 3, responseStatus: 204 })
    await sleep(600)
    expect(receiver.received).toHaveLength(3)
  })

  it('honours Retry-After on a 429 and disables the subscription on 410 Gone', async () => {
    const receiver = await startReceiver((n) =>
      n === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 410 },
    )
    const { api } = await server.newOwner()
    const sub = await subscribe(api, receiver.url)
    expectStatus(await api.post(`${H}/tags`, { name: 'Gone' }), 201)
    await receiver.waitFor(1)
    await sleep(500)
    expect(receiver.received).toHaveLength(1)
    await receiver.waitFor(2)
    const after = await eventually(async () => {
      const list = expectStatus(await api.get(SUBS), 200).items
      return list[0].status === 'disabled' && list[0]
    })
    expect(after.disabledReason).toContain('410')
    const [entry] = await deliveries(api, sub.id)
    expect(entry).toMatchObject({ status: 'failed', responseStatus: 410 })
    // The household hears of it as an event (owners get a notification from it).
    const events = await server.store.db
      .selectFrom('outbox')
      .select('payload')
      .where('household_id', '=', entry.id ? (await api.get('/households/current')).body.id : '')
      .execute()
    expect(events.map((e) => e.payload.type)).toContain('webhook.disabled')
  })

  it('gives up after the last scheduled attempt and disables the subscription', async () => {
    const receiver = await startReceiver(() => ({ status: 503 }))
    const { api } = await server.newOwner()
    const sub = await subscribe(api, receiver.url)
    expectStatus(await api.post(`${H}/tags`, { name: 'Dead' }), 201)
    await receiver.waitFor(4)
    const list = await eventually(async () => {
      const items = expectStatus(await api.get(SUBS), 200).items
      return items[0].status === 'disabled' && items
    })
    expect(list[0].disabledReason).toMatch(/4 attempts/)
    const [entry] = await deliveries(api, sub.id)
    expect(entry).toMatchObject({ status: 'failed', attempts: 4, nextAttemptAt: null })
  })

  it('never lets a hanging receiver stall another subscription', async () => {
    const hanging = await startReceiver(() => 'hang')
    const healthy = await startReceiver()
    const { api } = await server.newOwner()
    await subscribe(api, hanging.url)
    await subscribe(api, healthy.url)
    for (let i = 0; i < 8; i++) expectStatus(await api.post(`${H}/tags`, { name: `Tag ${i}` }), 201)
    const started = Date.now()
    await healthy.waitFor(8, 1900)
    expect(Date.now() - started).toBeLessThan(1900)
    // Writes are answered meanwhile too.
    expectStatus(await api.post(`${H}/tags`, { name: 'Still fast' }), 201)
  })

  it('queues a test delivery and a retry of a past one with 202, through the real path', async () => {
    const receiver = await startReceiver()
    const { api } = await server.newOwner()
    const sub = await subscribe(api, receiver.url)
    const queued = expectStatus(await api.post(`${SUBS}/${sub.id}/test`), 202)
    expect(queued).toMatchObject({ status: 'pending', deliveryId: expect.any(String) })
    const [test] = await receiver.waitFor(1)
    expect(test!.payload.type).toBe('webhook.test')
    receiver.verifyAll(sub.secret)
    await eventually(async () => (await deliveries(api, sub.id))[0]?.status === 'succeeded')
    expectStatus(await api.post(`${SUBS}/${sub.id}/deliveries/${queued.deliveryId}/retry`), 202)
    const [, again] = await receiver.waitFor(2)
    expect(again!.id).toBe(test!.id)
    expect(again!.body).toBe(test!.body)
    const other = await subscribe(api, receiver.url)
    expectProblem(
      await api.post(`${SUBS}/${other.id}/deliveries/${queued.deliveryId}/retry`),
      404,
      'NOT_FOUND',
    )
  })

  it('holds events from a paused subscription and deletes its deliveries with it', async () => {
    const receiver = await startReceiver()
    const { api, householdId } = await server.newOwner()
    // The household's own setup made events; a subscription to every type made before the outbox
    // has fanned them out would receive them (fan-out reads the subscriptions it finds then).
    await server.outboxSettled(householdId)
    const sub = await subscribe(api, receiver.url, ['*'])
    expect(expectStatus(await api.patch(`${SUBS}/${sub.id}`, { status: 'paused' }), 200).status).toBe(
      'paused',
    )
    expectStatus(await api.post(`${H}/tags`, { name: 'Quiet' }), 201)
    await sleep(400)
    expect(receiver.received).toHaveLength(0)
    expectStatus(await api.patch(`${SUBS}/${sub.id}`, { status: 'active', eventTypes: ['tag.created'] }), 200)
    expectStatus(await api.post(`${SUBS}/${sub.id}/test`), 202)
    await receiver.waitFor(1)
    expectProblem(await api.patch(`${SUBS}/${sub.id}`, { url: 'gopher://x' }), 422, 'WEBHOOK_URL_REFUSED')
    expectStatus(await api.delete(`${SUBS}/${sub.id}`), 204)
    const left = await server.store.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('subscription_id', '=', sub.id)
      .execute()
    expect(left).toEqual([])
    expectProblem(await api.get(`${SUBS}/${sub.id}/deliveries?limit=5`), 404, 'NOT_FOUND')
  })

  it('needs the webhook scopes, and a member of another household sees none of it', async () => {
    const { api } = await server.newOwner()
    const sub = await subscribe(api, 'http://127.0.0.1:9/')
    const reader = await server.newOwner(['read:webhooks'])
    expectProblem(
      await reader.api.post(SUBS, { url: 'http://127.0.0.1:9/', eventTypes: ['*'] }),
      403,
      'INSUFFICIENT_SCOPE',
    )
    expect(expectStatus(await reader.api.get(SUBS), 200).items).toEqual([])
    const other = await server.newOwner()
    expectProblem(await other.api.patch(`${SUBS}/${sub.id}`, { status: 'paused' }), 404, 'NOT_FOUND')
    expectProblem(await api.get(`${SUBS}/${sub.id}/deliveries`), 400, 'VALIDATION_FAILED')
  })

  it('delivers each event once with two server instances sending from one store', async () => {
    const second = await startTestServer({
      webhooks: {
        allowPrivate: true,
        secretKey: 'test-webhook-key',
        timeoutMs: 2000,
        retryScheduleMs: [100, 200, 400],
      },
    })
    try {
      const receiver = await startReceiver()
      const { api } = await server.newOwner()
      const sub = await subscribe(api, receiver.url)
      for (let i = 0; i < 30; i++) expectStatus(await api.post(`${H}/tags`, { name: `Twin ${i}` }), 201)
      await receiver.waitFor(30)
      await sleep(500)
      expect(receiver.received).toHaveLength(30)
      expect(new Set(receiver.received.map((r) => r.id)).size).toBe(30)
      receiver.verifyAll(sub.secret)
    } finally {
      await second.close()
    }
  })
})
