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
    const device = await newDevice(server, owner)
    await device.sync.whenSynced({ timeoutMs: 60_000 })
    await expectConverged(server, owner.householdId, [device])
    // Every index dropped for the load was built again, as the migrations define it.
    const expected = await transactionIndexes(server.store.db)
    expect(await transactionIndexes(device.store.db)).toEqual(expected)
    expect(expected.length).toBeGreaterThan(5)
    const { items } = await device.query.transactions.list({ accountId, limit: 3 })
    expect(items).toHaveLength(3)
  })
})
