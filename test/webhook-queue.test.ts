import {
  type ClaimedDelivery,
  claimDeliveries,
  fanOutEvents,
  migrateToLatest,
  operations,
  recordAttempts,
  releaseDeliveries,
  runMutation,
  type Store,
} from '@hearth/engine'
import { openStore } from '@hearth/engine/node'
import { newHousehold } from '@hearth/test/store'
import { ulid } from 'ulidx'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isolatedStore } from './src/index.ts'

// A store of its own: on a shared PostgreSQL database every test server's dispatcher would claim
// (and try to send) these deliveries too, and these claims would hold theirs.
let isolated: Awaited<ReturnType<typeof isolatedStore>>
let shared: Store
beforeAll(async () => {
  isolated = await isolatedStore()
  shared = await openStore({
    databaseUrl: isolated.config.databaseUrl,
    dataDir: isolated.config.dataDir ?? 'memory://',
    durable: false,
  })
  await migrateToLatest(shared.db)
})
afterAll(async () => {
  await shared?.close()
  await isolated?.drop()
})
const sharedStore = async () => shared

const lease = { leaseMs: 60_000, busy: [] as string[] }

/** A household with subscriptions to `transaction.created`, and events for it. */
async function household(subscriptions: number) {
  const store = await sharedStore()
  const ctx = await newHousehold(store)
  const subs: string[] = []
  for (let i = 0; i < subscriptions; i++) {
    const sub = await runMutation(
      store.db,
      operations.webhooks.create,
      {
        id: ulid(),
        url: `https://example.test/${i}`,
        eventTypes: ['transaction.created'],
        secretSealed: 'plain:whsec_x',
      },
      ctx,
    )
    subs.push(sub.result.id)
  }
  const events = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      id: ulid(),
      householdId: ctx.householdId,
      type: 'transaction.created',
      occurredAt: new Date().toISOString(),
      data: { i },
    })) as never[]
  return { store, ctx, subs, events }
}

/** Only this household's claimed deliveries (other tests share the store). */
function mine(items: ClaimedDelivery[], householdId: string) {
  return items.filter((d) => d.householdId === householdId)
}

describe('webhook delivery queue', () => {
  it('fans a batch of events out once per subscription, in the events’ order, and adds none the second time', async () => {
    const { store, ctx, subs, events } = await household(2)
    const batch = events(5)
    expect(await fanOutEvents(store.db, batch)).toBe(10)
    expect(await fanOutEvents(store.db, batch)).toBe(0)
    const rows = await store.db
      .selectFrom('webhook_deliveries')
      .select(['subscription_id', 'event_id'])
      .where('household_id', '=', ctx.householdId)
      .orderBy('id')
      .execute()
    for (const sub of subs) {
      expect(rows.filter((r) => r.subscription_id === sub).map((r) => r.event_id)).toEqual(
        batch.map((e: { id: string }) => e.id),
      )
    }
  })

  it('claims at most perSubscription of each subscription, each in order, and never one twice', async () => {
    const { store, ctx, subs, events } = await household(3)
    const batch = events(20)
    await fanOutEvents(store.db, batch)
    const [a, b] = await Promise.all([
      claimDeliveries(store.db, { ...lease, limit: 1000, perSubscription: 4 }),
      claimDeliveries(store.db, { ...lease, limit: 1000, perSubscription: 4 }),
    ])
    const claimed = [...mine(a, ctx.householdId), ...mine(b, ctx.householdId)]
    expect(new Set(claimed.map((d) => d.id)).size).toBe(claimed.length)
    for (const sub of subs) {
      const first = mine(a, ctx.householdId).filter((d) => d.subscriptionId === sub)
      expect(first.length).toBeLessThanOrEqual(4)
      // Each claimer takes a subscription's earliest events it could lock, in their order.
      const order = batch.map((e: { id: string }) => e.id)
      const positions = first.map((d) => order.indexOf(d.eventId))
      expect(positions).toEqual([...positions].sort((x, y) => x - y))
    }
    // A busy subscription is left out.
    const more = mine(
      await claimDeliveries(store.db, {
        leaseMs: 60_000,
        busy: [subs[0]!],
        limit: 1000,
        perSubscription: 20,
      }),
      ctx.householdId,
    )
    expect(more.some((d) => d.subscriptionId === subs[0])).toBe(false)
    expect(more.length).toBeGreaterThan(0)
  })

  it('gives back unattempted deliveries with their attempt taken back, and records only a claim still held', async () => {
    const { store, ctx, events } = await household(1)
    await fanOutEvents(store.db, events(2))
    const [first, second] = mine(
      await claimDeliveries(store.db, { ...lease, limit: 1000, perSubscription: 10 }),
      ctx.householdId,
    )
    expect([first?.attempts, second?.attempts]).toEqual([1, 1])
    await releaseDeliveries(store.db, [second!])
    const again = mine(
      await claimDeliveries(store.db, { ...lease, limit: 1000, perSubscription: 10 }),
      ctx.householdId,
    )
    expect(again.map((d) => [d.id, d.attempts])).toEqual([[second!.id, 1]])
    const outcome = {
      responseStatus: 200,
      latencyMs: 1,
      snippet: 'ok',
      error: null,
      status: 'succeeded' as const,
    }
    // An outcome for an attempt count the row no longer has (a stale holder's) records nothing.
    const recorded = await recordAttempts(store.db, [
      { delivery: first!, outcome },
      { delivery: { ...second!, attempts: 0 }, outcome },
    ])
    expect([...recorded]).toEqual([first!.id])
  })
})
