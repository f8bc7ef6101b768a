import { scratchTable, sharedStore, TEST_DATABASE_URL } from '@hearth/test/store'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/**
 * Both stores prepare each statement once (prepared-pglite.ts, prepared-client.ts); what a
 * caller sees must not change: values, errors, counts, and statements after DDL.
 */
describe('prepared statements', () => {
  const { name, qualified: table } = scratchTable('probe')
  const t = sql.table(table)

  beforeAll(async () => {
    const { db } = await sharedStore()
    await sql`create table ${t} (id text primary key, n int, at timestamptz, doc jsonb, tags text[])`.execute(
      db,
    )
  })
  afterAll(async () => {
    const { db } = await sharedStore()
    await sql`drop table if exists ${t}`.execute(db)
  })

  it('round-trips values of every kind, the same on each run of a kept statement', async () => {
    const { db } = await sharedStore()
    const at = new Date('2026-11-24T12:00:00.123Z')
    for (let i = 0; i < 8; i++) {
      const id = `v${i}`
      await sql`insert into ${t} (id, n, at, doc, tags)
        values (${id}, ${i === 3 ? null : i}, ${at}, ${JSON.stringify({ i, s: 'é' })}, ${['a', `b${i}`]})`.execute(
        db,
      )
      const { rows } = await sql<Record<string, unknown>>`select * from ${t} where id = ${id}`.execute(db)
      expect(rows).toEqual([{ id, n: i === 3 ? null : i, at, doc: { i, s: 'é' }, tags: ['a', `b${i}`] }])
    }
  })

  it('counts the rows a write touched', async () => {
    const { db } = await sharedStore()
    for (let i = 0; i < 7; i++) {
      const result = await sql`update ${t} set n = n where id like ${'v%'}`.execute(db)
      expect(result.numAffectedRows).toBe(8n)
    }
    const none = await sql`delete from ${t} where id = ${'missing'}`.execute(db)
    expect(none.numAffectedRows ?? 0n).toBe(0n)
  })

  it('keeps the database error, and a statement first prepared in a rolled-back transaction', async () => {
    const { db } = await sharedStore()
    const insert = (id: string) => sql`insert into ${t} (id) values (${id})`.execute(db)
    const error = await db
      .transaction()
      .execute(async (tx) => {
        await sql`select id from ${t} where id = ${'prepared in a transaction'}`.execute(tx)
        await sql`insert into ${t} (id) values (${'v1'})`.execute(tx)
      })
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ code: '23505', constraint: `${name}_pkey` })
    await insert('after rollback')
    const { rows } = await sql`select id from ${t} where id = ${'after rollback'}`.execute(db)
    expect(rows).toEqual([{ id: 'after rollback' }])
  })

  it('answers a kept statement with the new columns after the table changes', async () => {
    const { db } = await sharedStore()
    const read = () => sql<Record<string, unknown>>`select * from ${t} where id = ${'v0'}`.execute(db)
    for (let i = 0; i < 6; i++) await read()
    await sql`alter table ${t} add column note text default 'added'`.execute(db)
    const { rows } = await read()
    expect(rows[0]).toMatchObject({ id: 'v0', note: 'added' })
  })
})

describe('PreparedPGlite', () => {
  it.skipIf(Boolean(TEST_DATABASE_URL))(
    'lets two wrappers share one PGlite session without their names colliding',
    async () => {
      const { PGlite } = await import('@electric-sql/pglite')
      const { PreparedPGlite } = await import('./prepared-pglite.ts')
      const pg = new PGlite()
      try {
        const one = new PreparedPGlite(pg)
        const two = new PreparedPGlite(pg)
        expect((await one.query('select $1::int as n', [1])).rows).toEqual([{ n: 1 }])
        expect((await two.query('select $1::text as t', ['x'])).rows).toEqual([{ t: 'x' }])
        expect((await one.query('select $1::int as n', [2])).rows).toEqual([{ n: 2 }])
      } finally {
        await pg.close()
      }
    },
  )
})
