import { sharedStore } from '@hearth/test/store'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { readBackendMessages } from './backend-messages.ts'

/**
 * The embedded store reads PGlite's answers itself (backend-messages.ts); every value must come
 * back as PostgreSQL sent it, on both stores.
 */
describe('reading the backend messages', () => {
  it('answers text of every length and script, nulls and empty text as sent', async () => {
    const { db } = await sharedStore()
    const values = ['', 'a', 'café', '日本語', 'x'.repeat(24), 'é'.repeat(30), `${'🏠'.repeat(40)} end`, null]
    const { rows } = await sql<{ i: number; v: string | null }>`
      select i::int, v from unnest(${values}::text[]) with ordinality as t(v, i) order by i`.execute(db)
    expect(rows.map((r) => r.v)).toEqual(values)
  })

  it('answers a result larger than one write of the backend, row for row', async () => {
    const { db } = await sharedStore()
    const { rows } = await sql<{ n: number; t: string }>`
      select n, repeat(chr(65 + n % 26), 100) || n::text as t from generate_series(1, 3000) as n`.execute(db)
    expect(rows).toHaveLength(3000)
    const expected = (n: number) => ({ n, t: `${String.fromCharCode(65 + (n % 26)).repeat(100)}${n}` })
    expect(rows[2999]).toEqual({ n: 3000, t: `${'K'.repeat(100)}3000` })
    expect(rows.filter((r, i) => r.t !== expected(i + 1).t || r.n !== i + 1)).toEqual([])
  })

  it('reads a message split nowhere and leaves an incomplete tail alone', () => {
    // DataRow with one field 'hi', then ReadyForQuery, then three stray bytes.
    const bytes = new Uint8Array([
      0x44, 0, 0, 0, 12, 0, 1, 0, 0, 0, 2, 0x68, 0x69, 0x5a, 0, 0, 0, 5, 0x49, 0x44, 0, 0,
    ])
    expect(readBackendMessages(bytes)).toEqual([
      { name: 'dataRow', fields: ['hi'] },
      { name: 'readyForQuery' },
    ])
  })
})
