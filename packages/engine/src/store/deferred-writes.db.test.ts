import { scratchTable, sharedStore } from '@hearth/test/store'
import { type Kysely, sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../database.ts'
import { executeDeferred, sendStatement } from './deferred-writes.ts'

/**
 * A deferred write (sent with the next awaited statement or the commit on PostgreSQL, run at once
 * on PGlite) must behave as an awaited one for everything a caller can see: it commits with its
 * transaction, and its failure fails the transaction with its own error, never a later one's.
 */
describe('deferred writes', () => {
  const { name, qualified: table } = scratchTable('deferred')
  const t = sql.table(table)
  /** The untyped handle a probe table needs: deferred writes take any compilable statement. */
  const probe = (db: Kysely<Database>) => db as unknown as Kysely<Record<string, { id: string; n: number }>>
  const ids = async (db: Kysely<Database>) =>
    (await sql<{ id: string }>`select id from ${t} order by id`.execute(db)).rows.map((r) => r.id)

  beforeAll(async () => {
    const { db } = await sharedStore()
    await sql`create table ${t} (id text primary key, n int not null check (n >= 0))`.execute(db)
  })
  afterAll(async () => {
    const { db } = await sharedStore()
    await sql`drop table if exists ${t}`.execute(db)
  })

  it('commits with the transaction, in order with the statements awaited around it', async () => {
    const { db } = await sharedStore()
    const seen = await db.transaction().execute(async (tx) => {
      await executeDeferred(tx, probe(tx).insertInto(table).values({ id: 'a1', n: 1 }))
      await executeDeferred(tx, probe(tx).insertInto(table).values({ id: 'a2', n: 2 }))
      // An awaited read sees the deferred writes before it.
      const { rows } = await sql<{ count: number }>`select count(*)::int as count from ${t}`.execute(tx)
      await executeDeferred(tx, probe(tx).updateTable(table).set({ n: 3 }).where('id', '=', 'a2'))
      return rows[0]!.count
    })
    expect(seen).toBe(2)
    expect(await ids(db)).toEqual(['a1', 'a2'])
    const { rows } = await sql<{ n: number }>`select n from ${t} where id = 'a2'`.execute(db)
    expect(rows[0]!.n).toBe(3)
  })

  it('fails the transaction with its own error when it fails right before the commit', async () => {
    const { db } = await sharedStore()
    const error = await db
      .transaction()
      .execute(async (tx) => {
        await sql`insert into ${t} (id, n) values ('b1', 1)`.execute(tx)
        await executeDeferred(tx, probe(tx).insertInto(table).values({ id: 'a1', n: 1 }))
      })
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ code: '23505', constraint: `${name}_pkey` })
    expect(await ids(db)).toEqual(['a1', 'a2'])
  })

  it('fails the next awaited statement with its own error, not "transaction is aborted"', async () => {
    const { db } = await sharedStore()
    const error = await db
      .transaction()
      .execute(async (tx) => {
        await executeDeferred(tx, probe(tx).insertInto(table).values({ id: 'c1', n: -1 }))
        await sql`insert into ${t} (id, n) values ('c2', 1)`.execute(tx)
      })
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ code: '23514' })
    expect(await ids(db)).toEqual(['a1', 'a2'])
    // The connection is clean for whoever takes it next.
    await db.transaction().execute(async (tx) => {
      await executeDeferred(tx, probe(tx).insertInto(table).values({ id: 'c3', n: 1 }))
    })
    expect(await ids(db)).toEqual(['a1', 'a2', 'c3'])
  })

  it('lets a savepoint roll back a deferred write that failed, and the transaction go on', async () => {
    const { db } = await sharedStore()
    await db.transaction().execute(async (tx) => {
      await sql`savepoint probe`.execute(tx)
      // The failure arrives at the write itself (PGlite) or at the next awaited statement.
      const error = await (async () => {
        await executeDeferred(tx, probe(tx).insertInto(table).values({ id: 'a1', n: 1 }))
        await sql`release savepoint probe`.execute(tx)
      })().catch((e: unknown) => e)
      expect(error).toMatchObject({ code: '23505' })
      await sql`rollback to savepoint probe`.execute(tx)
      await executeDeferred(tx, probe(tx).insertInto(table).values({ id: 'd1', n: 1 }))
    })
    expect(await ids(db)).toEqual(['a1', 'a2', 'c3', 'd1'])
  })

  it('answers a sent statement with its own result, however many ride with it', async () => {
    const { db } = await sharedStore()
    const [first, second, count] = await db.transaction().execute(async (tx) => {
      const first = await sendStatement(tx, sql<{ n: number }>`select 41 + 1 as n`)
      await executeDeferred(tx, probe(tx).insertInto(table).values({ id: 'f1', n: 1 }))
      const second = await sendStatement(tx, probe(tx).selectFrom(table).select('id').where('id', '=', 'f1'))
      const { rows } = await sql<{ count: number }>`select count(*)::int as count from ${t}`.execute(tx)
      return [(await first.answer).rows, (await second.answer).rows, rows[0]!.count]
    })
    expect(first).toEqual([{ n: 42 }])
    expect(second).toEqual([{ id: 'f1' }])
    expect(count).toBe((await ids(db)).length)
  })

  it('answers a sent statement that no other statement follows', async () => {
    const { db } = await sharedStore()
    const count = () =>
      probe(db)
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
    // Run once first, so the store keeps it prepared and may hold it the second time.
    await count().execute()
    const rows = await db.transaction().execute(async (tx) => {
      const sent = await sendStatement(tx, count())
      return (await sent.answer).rows
    })
    expect(rows).toEqual([{ n: expect.anything() }])
  })

  it('commits once a savepoint rolled back a failed write that nothing awaited', async () => {
    const { db } = await sharedStore()
    await db.transaction().execute(async (tx) => {
      await sql`savepoint probe`.execute(tx)
      // The write fails (a duplicate id); the caller gives up on the step without awaiting more.
      await executeDeferred(tx, probe(tx).insertInto(table).values({ id: 'a1', n: 1 })).catch(() => {})
      await sql`rollback to savepoint probe`.execute(tx)
      await executeDeferred(tx, probe(tx).insertInto(table).values({ id: 'g1', n: 1 }))
    })
    expect(await ids(db)).toContain('g1')
  })

  it('runs at once, and fails where it is awaited, outside a transaction', async () => {
    const { db } = await sharedStore()
    await executeDeferred(db, probe(db).insertInto(table).values({ id: 'e1', n: 1 }))
    expect(await ids(db)).toContain('e1')
    const error = await executeDeferred(db, probe(db).insertInto(table).values({ id: 'e1', n: 1 })).catch(
      (e: unknown) => e,
    )
    expect(error).toMatchObject({ code: '23505' })
  })
})
