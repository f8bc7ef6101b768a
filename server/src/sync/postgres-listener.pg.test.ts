import { operations, runMutation } from '@hearth/engine'
import { newHousehold, sharedStore, TEST_DATABASE_URL } from '@hearth/test'
import { sql } from 'kysely'
import pino from 'pino'
import { describe, expect, it, vi } from 'vitest'
import {
  HOUSEHOLD_CHANNEL,
  listenOnPostgres,
  PRESENCE_CHANNEL,
  parseHouseholdVersion,
} from './postgres-listener.ts'

describe.skipIf(!TEST_DATABASE_URL)('postgres listener', () => {
  it('hears every version bump another connection commits, and each channel it listens on', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const heard: number[] = []
    const presence: string[] = []
    const listener = listenOnPostgres(
      TEST_DATABASE_URL!,
      {
        [HOUSEHOLD_CHANNEL]: (payload) => {
          const bump = parseHouseholdVersion(payload)
          if (bump?.householdId === ctx.householdId) heard.push(bump.version)
        },
        [PRESENCE_CHANNEL]: (payload) => presence.push(payload),
      },
      pino({ level: 'silent' }),
    )
    try {
      await vi.waitFor(async () => {
        await runMutation(store.db, operations.households.update, { name: `Renamed ${Date.now()}` }, ctx)
        expect(heard.length).toBeGreaterThan(0)
      })
      const { version } = await runMutation(
        store.db,
        operations.households.update,
        { name: 'Once more' },
        ctx,
      )
      await vi.waitFor(() => expect(heard).toContain(version))
      await sql`select pg_notify(${PRESENCE_CHANNEL}, ${ctx.householdId})`.execute(store.db)
      await vi.waitFor(() => expect(presence).toContain(ctx.householdId))
    } finally {
      await listener.close()
    }
  })
})
