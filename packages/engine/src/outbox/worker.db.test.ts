import { claimOutbox, OutboxWorker, operations, retryDelayMs, runMutation } from '@hearth/engine'
import { newHousehold, sharedStore } from '@hearth/test/store'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'

/** Queues items under a topic of this test's own, so parallel tests never see each other's work. */
async function enqueue(topic: string, count: number) {
  const store = await sharedStore()
  await store.db
    .insertInto('outbox')
    .values(
      Array.from({ length: count }, (_, i) => ({
        household_id: null,
        topic,
        payload: JSON.stringify({ i }),
      })),
    )
    .execute()
}

describe('outbox', () => {
  it('queues a mutation’s events in its transaction, and none for a rolled-back one', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    await runMutation(store.db, operations.households.update, { name: 'Evented' }, ctx)
    await expect(
      runMutation(store.db, operations.households.update, { baseCurrency: 'nope' }, ctx),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' })
    const events = await store.db
      .selectFrom('outbox')
      .select('payload')
      .where('household_id', '=', ctx.householdId)
      .orderBy('id')
      .execute()
    expect(events.map((e) => e.payload.type)).toEqual(['household.created', 'household.updated'])
    expect(events[1]?.payload).toMatchObject({
      householdId: ctx.householdId,
      version: 2,
      data: { changes: ['name'] },
    })
  })

  it('hands each item to exactly one of two concurrent claimers', async () => {
    const store = await sharedStore()
    const topic = `claim-${Math.random()}`
    await enqueue(topic, 30)
    const [a, b] = await Promise.all([
      claimOutbox(store.db, { limit: 20, leaseMs: 60_000, topics: [topic] }),
      claimOutbox(store.db, { limit: 20, leaseMs: 60_000, topics: [topic] }),
    ])
    const ids = [...a, ...b].map((i) => i.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.length).toBe(30)
  })

  it('runs handlers and marks items done', async () => {
    const store = await sharedStore()
    const topic = `done-${Math.random()}`
    await enqueue(topic, 3)
    const seen: number[] = []
    const worker = new OutboxWorker(store.db, {
      handlers: { [topic]: async (item) => void seen.push(item.payload.i as number) },
    })
    expect(await worker.drain()).toBe(3)
    expect(seen).toEqual([0, 1, 2])
    const left = await store.db.selectFrom('outbox').select('status').where('topic', '=', topic).execute()
    expect(left.every((r) => r.status === 'done')).toBe(true)
  })

  it('schedules a failed item for a later retry with the error kept', async () => {
    const store = await sharedStore()
    const topic = `fail-${Math.random()}`
    await enqueue(topic, 1)
    const worker = new OutboxWorker(store.db, {
      handlers: {
        [topic]: async () => {
          throw new Error('target down')
        },
      },
    })
    await worker.tick()
    const row = await store.db
      .selectFrom('outbox')
      .select(['status', 'attempts', 'last_error'])
      .select(sql<boolean>`available_at > now()`.as('later'))
      .where('topic', '=', topic)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({ status: 'pending', attempts: 1, last_error: 'target down', later: true })
  })

  it('marks a batch done together, leaving the one item that failed in it for a retry', async () => {
    const store = await sharedStore()
    const topic = `mixed-${Math.random()}`
    await enqueue(topic, 5)
    const worker = new OutboxWorker(store.db, {
      handlers: {
        [topic]: async (item) => {
          if (item.payload.i === 2) throw new Error('target down')
        },
      },
    })
    expect(await worker.tick()).toBe(5)
    const rows = await store.db
      .selectFrom('outbox')
      .select(['payload', 'status', 'last_error'])
      .where('topic', '=', topic)
      .orderBy('id')
      .execute()
    expect(rows.map((r) => [(r.payload as { i: number }).i, r.status, r.last_error])).toEqual([
      [0, 'done', null],
      [1, 'done', null],
      [2, 'pending', 'target down'],
      [3, 'done', null],
      [4, 'done', null],
    ])
  })

  it('hands a batch topic its items together in order, and a failing batch item by item, so one bad item fails alone', async () => {
    const store = await sharedStore()
    const topic = `batch-${Math.random()}`
    await enqueue(topic, 5)
    const calls: number[][] = []
    const worker = new OutboxWorker(store.db, {
      handlers: {},
      batchHandlers: {
        [topic]: async (items) => {
          const ids = items.map((item) => item.payload.i as number)
          calls.push(ids)
          if (ids.includes(3)) throw new Error('bad item')
        },
      },
    })
    expect(await worker.tick()).toBe(5)
    expect(calls).toEqual([[0, 1, 2, 3, 4], [0], [1], [2], [3], [4]])
    const rows = await store.db
      .selectFrom('outbox')
      .select(['payload', 'status', 'last_error'])
      .where('topic', '=', topic)
      .orderBy('id')
      .execute()
    expect(rows.map((r) => [(r.payload as { i: number }).i, r.status, r.last_error])).toEqual([
      [0, 'done', null],
      [1, 'done', null],
      [2, 'done', null],
      [3, 'pending', 'bad item'],
      [4, 'done', null],
    ])
  })

  it('gives the items of a worker that died back once their lease is over', async () => {
    const store = await sharedStore()
    const topic = `lease-${Math.random()}`
    await enqueue(topic, 2)
    const crashed = await claimOutbox(store.db, { limit: 10, leaseMs: 50, topics: [topic] })
    expect(crashed).toHaveLength(2)
    expect(await claimOutbox(store.db, { limit: 10, leaseMs: 60_000, topics: [topic] })).toHaveLength(0)
    await new Promise((r) => setTimeout(r, 120))
    const retaken = await claimOutbox(store.db, { limit: 10, leaseMs: 60_000, topics: [topic] })
    expect(retaken.map((i) => i.attempts)).toEqual([2, 2])
  })

  it('backs off exponentially with jitter, capped at an hour', () => {
    expect(retryDelayMs(1, () => 0)).toBe(1000)
    expect(retryDelayMs(1, () => 1)).toBe(2000)
    expect(retryDelayMs(5, () => 1)).toBe(32_000)
    expect(retryDelayMs(30, () => 1)).toBe(3_600_000)
  })
})
