import { sharedStore, TEST_DATABASE_URL } from '@hearth/test/store'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'

/**
 * The household clock announces each version on `hearth_household` so that servers wake their
 * devices; a replica (`hearth.replica` on) has nobody listening and announces nothing.
 */
describe('the clock announcement', () => {
  // PGlite hears NOTIFY on its own connection; PostgreSQL's listener has its own test.
  it.skipIf(Boolean(TEST_DATABASE_URL))('is sent for a server write and skipped on a replica', async () => {
    const store = await sharedStore()
    const heard: string[] = []
    const stop = await store.listen!('hearth_household', (payload) => heard.push(payload))
    try {
      const bump = (household: string, replica: boolean) =>
        store.db.transaction().execute(async (tx) => {
          if (replica) await sql`select set_config('hearth.replica', 'on', true)`.execute(tx)
          await sql`insert into household_clock (household_id, version) values (${household}, 1)
            on conflict (household_id) do update set version = household_clock.version + 1`.execute(tx)
        })
      const server = ulid()
      const replica = ulid()
      await bump(server, false)
      await bump(replica, true)
      await bump(server, false)
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(heard.filter((p) => p.startsWith(server))).toEqual([`${server}:1`, `${server}:2`])
      expect(heard.filter((p) => p.startsWith(replica))).toEqual([])
    } finally {
      await stop()
    }
  })
})
