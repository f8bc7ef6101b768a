import { EngineError } from '@hearth/engine'
import { sharedStore } from '@hearth/test/store'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'

describe('int8 from either driver', () => {
  it('comes back as an exact number, and past 2^53 as a 422 naming the total rather than a 500', async () => {
    const store = await sharedStore()
    const exact = await sql<{ n: number }>`select 9007199254740991::bigint as n`.execute(store.db)
    expect(exact.rows[0]!.n).toBe(Number.MAX_SAFE_INTEGER)
    const error = await sql`select 9007199254740993::bigint as n`.execute(store.db).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(EngineError)
    expect(error).toMatchObject({ status: 422, code: 'TOTAL_OUT_OF_RANGE' })
    expect((error as Error).message).toContain('9007199254740993')
    // The store answers the next query as usual.
    expect((await sql<{ n: number }>`select 1::bigint as n`.execute(store.db)).rows).toEqual([{ n: 1 }])
  })
})
