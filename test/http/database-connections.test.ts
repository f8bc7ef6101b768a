import { sql } from 'kysely'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { TEST_DATABASE_URL } from '../src/variant.ts'
import { expectStatus, H } from './catalog-fixture.ts'
import { createAccount, createTransaction } from './ledger-fixture.ts'
import { eventually } from './webhook-receiver.ts'

describe.skipIf(!TEST_DATABASE_URL)('a server on PostgreSQL', () => {
  // A store of its own, so that ending every connection to it touches no other file's server.
  const server = useTestServer({}, { isolated: true })

  it('keeps serving when PostgreSQL ends its idle connections (a restart, a failover, an administrator)', async () => {
    const { api } = await server.newOwner()
    const account = await createAccount(api)
    const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(server.store.db)
    const database = rows[0]!.name

    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL })
    await admin.connect()
    try {
      // The pids first, then the ends: in one WHERE, PostgreSQL may call pg_terminate_backend
      // before it has filtered by database.
      const found = await admin.query<{ pid: number }>(
        'select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [database],
      )
      expect(found.rows.length).toBeGreaterThan(0)
      const pids = found.rows.map((row) => row.pid)
      await admin.query('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [pids])
      // A backend tells its client before it exits; once every one is gone, each client has it.
      await eventually(
        async () =>
          (await admin.query('select 1 from pg_stat_activity where pid = any($1)', [pids])).rows.length === 0,
      )
    } finally {
      await admin.end()
    }
    await new Promise((resolve) => setTimeout(resolve, 100))

    // Without a listener on the pool, `pg` threw the lost connection and the process stopped.
    await createTransaction(api, account.id, { amountCents: -1_250 })
    const list = expectStatus(await api.get(`${H}/transactions?accountId=${account.id}`), 200)
    expect(list.items.map((t: { amountCents: string }) => t.amountCents)).toEqual(['-1250'])
  })
})
