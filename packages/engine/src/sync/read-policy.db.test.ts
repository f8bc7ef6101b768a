import { sharedStore } from '@hearth/test/store'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { readRule } from './read-policy.ts'
import { syncedTables } from './synced-tables.ts'

describe('the read policy on a migrated store', () => {
  it('names every table of the schema', async () => {
    const store = await sharedStore()
    const { rows } = await sql<{ name: string }>`
      select table_name as name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE'
      order by table_name`.execute(store.db)
    expect(rows.length).toBeGreaterThan(20)
    expect(rows.map((r) => r.name).filter((t) => readRule(t) === undefined)).toEqual([])
  })

  it('gives every table the change log covers a read scope, and only those', async () => {
    const store = await sharedStore()
    const logged = await syncedTables(store.db)
    expect(logged).toContain('transactions')
    const unreadable = logged.filter((t) => {
      const rule = readRule(t)
      return rule === undefined || !('read' in rule)
    })
    expect(unreadable).toEqual([])
    const { rows } = await sql<{ name: string }>`
      select table_name as name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(store.db)
    const scopedButUnlogged = rows
      .map((r) => r.name)
      .filter((t) => {
        const rule = readRule(t)
        return rule !== undefined && 'read' in rule && !logged.includes(t)
      })
    expect(scopedButUnlogged).toEqual([])
  })
})
