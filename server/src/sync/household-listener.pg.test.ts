import { identityMutators, runMutation } from '@hearth/engine'
import { newHousehold, sharedStore, TEST_DATABASE_URL } from '@hearth/test'
import pino from 'pino'
import { describe, expect, it, vi } from 'vitest'
import { listenForHouseholdChanges } from './household-listener.ts'

describe.skipIf(!TEST_DATABASE_URL)('household listener (PostgreSQL)', () => {
  it('hears every version bump another connection commits', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const heard: [string, number][] = []
    const listener = listenForHouseholdChanges(
      TEST_DATABASE_URL!,
      (householdId, version) => {
        if (householdId === ctx.householdId) heard.push([householdId, version])
      },
      pino({ level: 'silent' }),
    )
    try {
      await vi.waitFor(async () => {
        await runMutation(store.db, identityMutators.updateHousehold, { name: `Renamed ${Date.now()}` }, ctx)
        expect(heard.length).toBeGreaterThan(0)
      })
      const { version } = await runMutation(
        store.db,
        identityMutators.updateHousehold,
        { name: 'Once more' },
        ctx,
      )
      await vi.waitFor(() => expect(heard).toContainEqual([ctx.householdId, version]))
    } finally {
      await listener.close()
    }
  })
})
