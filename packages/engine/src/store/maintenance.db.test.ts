import { rmSync } from 'node:fs'
import {
  maintainStore,
  migrateToLatest,
  openPGliteStore,
  operations,
  runMutation,
  SCOPES,
} from '@hearth/engine'
import { tempDataDir } from '@hearth/test/store'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { afterAll, describe, expect, it } from 'vitest'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe('store maintenance', () => {
  it('gives PGlite, which has no autovacuum, fresh planner statistics', async () => {
    const store = await openPGliteStore({ dataDir: tempDataDir(dirs) })
    try {
      await migrateToLatest(store.db)
      const now = new Date()
      for (let i = 0; i < 20; i++) {
        const id = ulid()
        await runMutation(
          store.db,
          operations.users.create,
          { id, name: `User ${i}` },
          { userId: id, scopes: [...SCOPES], now },
        )
      }
      const analyzed = () =>
        sql<{ n: number }>`select count(*)::int as n from pg_stat_user_tables
          where relname = 'users' and last_analyze is not null`.execute(store.db)
      expect((await analyzed()).rows[0]?.n).toBe(0)
      expect(await maintainStore(store)).toBe(true)
      expect((await analyzed()).rows[0]?.n).toBe(1)
      const stats = await sql<{
        reltuples: number
      }>`select reltuples from pg_class where relname = 'users'`.execute(store.db)
      expect(stats.rows[0]?.reltuples).toBe(20)
    } finally {
      await store.close()
    }
  })
})
