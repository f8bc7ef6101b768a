import { scratchTable, sharedStore, TEST_DATABASE_URL } from '@hearth/test/store'
import { type Kysely, PostgresIntrospector, sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import type { Database } from '../database.ts'
import { openPostgresStore } from '../node.ts'
import { SteadyIntrospector } from './postgres-dialect.ts'

/**
 * Kysely's migrator lists the database's tables before it migrates; a table another session drops
 * meanwhile must not fail the list (it failed a test server's start when a neighbouring test
 * dropped its probe table). Under the churn below, Kysely's own reader failed 20 of 150 reads
 * (2026-11-25), with "relation does not exist" or "column does not exist", and a reader that
 * retried it five times still failed once in a CI run.
 */
describe('the catalog reader', () => {
  it("answers as Kysely's own: names, types, defaults, sequences and comments", async () => {
    const { db } = await sharedStore()
    const { name, qualified } = scratchTable('probe')
    const t = sql.table(qualified)
    await sql`create table ${t} (a serial primary key, b bigint generated always as identity, c text not null default 'x', d numeric)`.execute(
      db,
    )
    await sql`comment on column ${t}.c is 'the c'`.execute(db)
    try {
      const ours = await new SteadyIntrospector(db).getTables({ withInternalKyselyTables: true })
      // Kysely's own reader fails when another test file drops a table as it reads: read it again.
      let kysely: typeof ours | undefined
      for (let attempt = 1; !kysely; attempt++) {
        kysely = await new PostgresIntrospector(db)
          .getTables({ withInternalKyselyTables: true })
          .catch((error) => {
            if (attempt >= 20) throw error
            return undefined
          })
      }
      // Other test files may create or drop tables meanwhile: compare the ones that stay.
      const stable = (tables: typeof ours) =>
        tables.filter((x) => x.name === name || ['transactions', 'tags', 'kysely_migration'].includes(x.name))
      expect(stable(ours)).toEqual(stable(kysely))
      const probe = ours.find((x) => x.name === name)!
      expect(
        probe.columns.map((c) => [c.name, c.isAutoIncrementing, c.hasDefaultValue, c.isNullable]),
      ).toEqual([
        ['a', true, true, false],
        ['b', true, false, false],
        ['c', false, true, false],
        ['d', false, false, true],
      ])
      expect(probe.columns[2]!.comment).toBe('the c')
      const without = await new SteadyIntrospector(db).getTables()
      expect(without.some((x) => x.name === 'kysely_migration')).toBe(false)
      expect(without.some((x) => x.name === 'transactions')).toBe(true)
    } finally {
      await sql`drop table ${t}`.execute(db)
    }
  })
})

describe.runIf(Boolean(TEST_DATABASE_URL))('the catalog reader under churn', () => {
  /** Lists the tables `reads` times while another session creates and drops tables. */
  async function listWhileDropping(read: (db: Kysely<Database>) => Promise<unknown>, reads: number) {
    const { db } = await sharedStore()
    const other = await openPostgresStore({ url: TEST_DATABASE_URL!, poolSize: 1 })
    let stop = false
    const churn = (async () => {
      while (!stop) {
        const t = sql.table(scratchTable('churn').qualified)
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
    }, 300)
  })
})
