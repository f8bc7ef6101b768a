import { sharedStore, TEST_DATABASE_URL } from '@hearth/test/store'
import { type Kysely, sql } from 'kysely'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import type { Database } from '../database.ts'
import { openPostgresStore } from '../node.ts'
import { SteadyIntrospector } from './postgres-dialect.ts'

/**
 * Kysely's migrator lists the database's tables before it migrates; a table another session drops
 * meanwhile must not fail the list (it failed a test server's start when a neighbouring test
 * dropped its probe table). Under the churn below, Kysely's own reader failed 20 of 150 reads
 * (2026-11-25), with "relation does not exist" or "column does not exist".
 */
describe.runIf(Boolean(TEST_DATABASE_URL))('the catalog reader', () => {
  /** Lists the tables `reads` times while another session creates and drops tables. */
  async function listWhileDropping(read: (db: Kysely<Database>) => Promise<unknown>, reads: number) {
    const { db } = await sharedStore()
    const other = await openPostgresStore({ url: TEST_DATABASE_URL!, poolSize: 1 })
    let stop = false
    const churn = (async () => {
      while (!stop) {
        const t = sql.table(`churn_${ulid().toLowerCase()}`)
        await sql`create table ${t} (id serial primary key, a text, b text, c text)`.execute(other.db)
        await sql`drop table ${t}`.execute(other.db)
      }
    })()
    try {
      for (let i = 0; i < reads; i++) await read(db)
    } finally {
      stop = true
      await churn
      await other.close()
    }
  }

  it('lists the tables without failing while another session drops some', async () => {
    await listWhileDropping(async (db) => {
      const tables = await new SteadyIntrospector(db).getTables()
      expect(tables.some((t) => t.name === 'transactions')).toBe(true)
    }, 150)
  })
})
