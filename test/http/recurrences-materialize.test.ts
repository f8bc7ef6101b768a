import { type HouseholdContext, operations, runMutation, SCOPES, type Store } from '@hearth/engine'
import { openPostgresStore } from '@hearth/engine/node'
import { materializeRecurrences } from '@hearth/server'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { afterAll, describe, expect, it } from 'vitest'
import { TEST_DATABASE_URL, useTestServer } from '../src/index.ts'

const server = useTestServer()
const extraStores: Store[] = []
afterAll(async () => {
  await Promise.all(extraStores.map((s) => s.close()))
})

const system = (now: Date) => ({ actor: 'system' as const, scopes: SCOPES, now })

/** A household in `timeZone` with an open account, acting as its owner at `now`. */
async function household(now: Date, timeZone = 'UTC') {
  const owner = await server.newOwner()
  const ctx: HouseholdContext = {
    userId: owner.userId,
    householdId: owner.householdId,
    role: 'owner',
    scopes: SCOPES,
    now,
  }
  await run(operations.households.update, { timeZone }, ctx)
  const accountId = ulid()
  await run(operations.accounts.create, { id: accountId, name: 'Checking', type: 'cash' }, ctx)
  return { ctx, accountId }
}

async function run(op: Parameters<typeof runMutation>[1], args: unknown, ctx: HouseholdContext) {
  return (await runMutation(server.store.db, op, args, ctx)).result as any
}

/** Booked rows of a household, by date. */
async function booked(store: Store, householdId: string) {
  const { rows } = await sql<{ date: string; external_id: string; category_id: string | null }>`
    select date, external_id, category_id from transactions
    where household_id = ${householdId} and source = 'recurring' order by date`.execute(store.db)
  return rows
}

describe('materializing recurrences', () => {
  it('books each due occurrence once, through the pipeline, across runs and a restart', async () => {
    const start = new Date('2026-01-10T12:00:00Z')
    const { ctx, accountId } = await household(start)
    const group = await run(operations.categoryGroups.create, { id: ulid(), name: 'Bills' }, ctx)
    const gym = await run(operations.categories.create, { id: ulid(), groupId: group.id, name: 'Gym' }, ctx)
    await run(
      operations.rules.create,
      {
        id: ulid(),
        name: 'Gym',
        predicate: { combinator: 'all', conditions: [{ field: 'outflow', op: 'approx', value: 2500 }] },
        action: { setCategoryId: gym.id },
      },
      ctx,
    )
    const r = await run(
      operations.recurrences.create,
      { id: ulid(), name: 'Gym', accountId, amountCents: -2500, frequency: 'daily', startDate: '2026-01-01' },
      ctx,
    )
    expect(r.nextRunDate).toBe('2026-01-10')
    expect((await materializeRecurrences(server.store, system(start))).booked).toBeGreaterThanOrEqual(1)
    expect((await booked(server.store, ctx.householdId)).map((b) => b.date)).toEqual(['2026-01-10'])
    await materializeRecurrences(server.store, system(start))
    await server.restart()
    const later = new Date('2026-01-13T08:00:00Z')
    await materializeRecurrences(server.store, system(later))
    await materializeRecurrences(server.store, system(later))
    const rows = await booked(server.store, ctx.householdId)
    expect(rows.map((b) => b.date)).toEqual(['2026-01-10', '2026-01-11', '2026-01-12', '2026-01-13'])
    expect(
      rows.every((b) => b.external_id === `recurrence:${r.id}:${b.date}` && b.category_id === gym.id),
    ).toBe(true)
    const get = await runMutation(
      server.store.db,
      operations.recurrences.materializeNow,
      { id: r.id },
      { ...ctx, now: later },
    )
    expect(get.result).toMatchObject({ date: '2026-01-13', created: false })
  })

  it('never runs a paused recurrence, and resuming skips what fell while paused', async () => {
    const start = new Date('2026-02-01T12:00:00Z')
    const { ctx, accountId } = await household(start)
    const r = await run(
      operations.recurrences.create,
      {
        id: ulid(),
        name: 'Paper',
        accountId,
        amountCents: -300,
        frequency: 'daily',
        startDate: '2026-02-02',
      },
      ctx,
    )
    await run(operations.recurrences.pause, { id: r.id }, ctx)
    await materializeRecurrences(server.store, system(new Date('2026-02-05T12:00:00Z')))
    expect(await booked(server.store, ctx.householdId)).toEqual([])
    const resumed = await run(
      operations.recurrences.resume,
      { id: r.id },
      { ...ctx, now: new Date('2026-02-05T12:00:00Z') },
    )
    expect(resumed.nextRunDate).toBe('2026-02-05')
    await materializeRecurrences(server.store, system(new Date('2026-02-06T12:00:00Z')))
    expect((await booked(server.store, ctx.householdId)).map((b) => b.date)).toEqual([
      '2026-02-05',
      '2026-02-06',
    ])
  })

  it("books by the household's own day across a daylight-saving change", async () => {
    // New York moves to daylight time on 2026-03-08: local midnight is 05:00Z before it and 04:00Z after.
    const { ctx, accountId } = await household(new Date('2026-03-06T17:00:00Z'), 'America/New_York')
    const r = await run(
      operations.recurrences.create,
      {
        id: ulid(),
        name: 'Coffee',
        accountId,
        amountCents: -450,
        frequency: 'daily',
        startDate: '2026-03-07',
      },
      ctx,
    )
    const monthEnd = await run(
      operations.recurrences.create,
      {
        id: ulid(),
        name: 'Rent',
        accountId,
        amountCents: -90_000,
        frequency: 'monthly_last_day',
        startDate: '2026-02-01',
      },
      ctx,
    )
    expect(monthEnd.nextRunDate).toBe('2026-03-31')
    const dates = async () => (await booked(server.store, ctx.householdId)).map((b) => b.date)
    await materializeRecurrences(server.store, system(new Date('2026-03-08T04:30:00Z')))
    expect(await dates()).toEqual(['2026-03-07'])
    await materializeRecurrences(server.store, system(new Date('2026-03-09T03:30:00Z')))
    expect(await dates()).toEqual(['2026-03-07', '2026-03-08'])
    await materializeRecurrences(server.store, system(new Date('2026-03-09T04:00:00Z')))
    expect(await dates()).toEqual(['2026-03-07', '2026-03-08', '2026-03-09'])
    expect(r.nextRunDate).toBe('2026-03-07')
  })

  it('books once when two servers run the job at the same moment', async () => {
    const now = new Date('2026-04-20T12:00:00Z')
    const { ctx, accountId } = await household(now)
    for (const name of ['A', 'B', 'C']) {
      await run(
        operations.recurrences.create,
        { id: ulid(), name, accountId, amountCents: -100, frequency: 'weekly', startDate: '2026-04-01' },
        ctx,
      )
    }
    // Each "server" its own connection pool on PostgreSQL; on PGlite, two runs on the one store.
    const other = TEST_DATABASE_URL
      ? await openPostgresStore({ url: TEST_DATABASE_URL, poolSize: 2 })
      : server.store
    if (other !== server.store) extraStores.push(other)
    const late = new Date('2026-04-29T12:00:00Z')
    await Promise.all([
      materializeRecurrences(server.store, system(late)),
      materializeRecurrences(other, system(late)),
      materializeRecurrences(server.store, system(late)),
    ])
    const rows = await booked(server.store, ctx.householdId)
    expect(rows).toHaveLength(3 * 2)
    expect(new Set(rows.map((b) => b.external_id)).size).toBe(6)
  })
})
