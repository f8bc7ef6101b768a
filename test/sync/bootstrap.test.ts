import { type Database, operations, runMutation, SCOPES } from '@hearth/engine'
import { type Kysely, sql } from 'kysely'
import { ulid } from 'ulidx'
import { afterEach, describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { closeDevices, expectConverged, newDevice } from './devices.ts'

const server = useTestServer()
afterEach(closeDevices)

/** Every index of the transactions table, by name, as a store defines it. */
async function transactionIndexes(db: Kysely<Database>) {
  const { rows } = await sql<{ name: string; def: string }>`
    select indexname as name, indexdef as def from pg_indexes
    where tablename = 'transactions' order by indexname`.execute(db)
  return rows
}

describe('bootstrap', () => {
  it('loads a large snapshot page by page, without its indexes until the load is done', async () => {
    const owner = await server.newOwner()
    const ctx = {
      userId: owner.userId,
      scopes: [...SCOPES],
      householdId: owner.householdId,
      role: 'owner' as const,
      now: new Date(),
    }
    const accountId = ulid()
    await runMutation(
      server.store.db,
      operations.accounts.create,
      { id: accountId, name: 'Main', type: 'cash' },
      ctx,
    )
    // More than a snapshot page (2,000 rows) of transactions: several full pages of one table.
    for (let n = 0; n < 4500; n += 500) {
      const transactions = Array.from({ length: 500 }, (_, k) => ({
        id: ulid(),
        accountId,
        date: '2026-01-01',
        amountCents: -(n + k + 1),
      }))
      await runMutation(server.store.db, operations.transactions.bulkCreate, { transactions }, ctx)
    }
    // Connected only once its status is watched: the rows are counted as they arrive and load.
    const device = await newDevice(server, owner, { connect: false })
    const progress: { receivedRows: number; loadedRows: number }[] = []
    device.on('status', (s) => {
      if (s.snapshot) progress.push({ ...s.snapshot })
    })
    device.sync.connect()
    await device.sync.whenSynced({ timeoutMs: 60_000 })
    await expectConverged(server, owner.householdId, [device])
    expect(device.sync.status.snapshot).toBeNull()
    const last = progress.at(-1)!
    expect(last.loadedRows).toBe(last.receivedRows)
    expect(last.loadedRows).toBeGreaterThanOrEqual(4500)
    const loaded = progress.map((p) => p.loadedRows)
    expect(loaded).toEqual([...loaded].sort((x, y) => x - y))
    expect(new Set(loaded).size).toBeGreaterThan(2)
    // The daily sums forecasts read were added up once after the load, as the server keeps them,
    // and their triggers fire again (always, for server rows too).
    const sums = (db: Kysely<Database>) =>
      sql<{ date: string; account_id: string; category_id: string; spent_cents: string }>`
        select date::text, account_id, category_id, spent_cents::text from forecast_days
        where household_id = ${owner.householdId} order by 1, 2, 3`
        .execute(db)
        .then((r) => r.rows)
    const kept = await sums(server.store.db)
    expect(kept.length).toBeGreaterThan(0)
    expect(await sums(device.store.db)).toEqual(kept)
    const triggers = await sql<{ tgenabled: string }>`
      select tgenabled from pg_trigger where tgname like '%forecast_days_insert'`.execute(device.store.db)
    expect(triggers.rows.map((t) => t.tgenabled)).toEqual(['A', 'A'])
    // Every index dropped for the load was built again, as the migrations define it.
    const expected = await transactionIndexes(server.store.db)
    expect(await transactionIndexes(device.store.db)).toEqual(expected)
    expect(expected.length).toBeGreaterThan(5)
    const { items } = await device.query.transactions.list({ accountId, limit: 3 })
    expect(items).toHaveLength(3)
  })
})
