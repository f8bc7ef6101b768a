import { engineHooks, type HouseholdSeeder, operations, runMutation, SCOPES } from '@hearth/engine'
import { sharedStore } from '@hearth/test/store'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { createRegistry } from '../mutator/registry.ts'
import { identityOperations } from './operations.ts'

/** A user of their own, so each test creates a household nobody else touches. */
async function newOwner() {
  const store = await sharedStore()
  const userId = ulid()
  const actor = { userId, scopes: [...SCOPES], now: new Date() }
  await runMutation(store.db, operations.users.create, { id: userId, name: 'Seeded owner' }, actor)
  return { store, actor }
}

/** Identity's operations with the engine's seeders and then one more, as a feature domain adds its own. */
function identityWith(seeder: HouseholdSeeder) {
  return createRegistry(identityOperations({ householdSeeders: [...engineHooks.householdSeeders, seeder] }))
}

describe('household seeders', () => {
  it('fill a new household in order, in the transaction that creates it', async () => {
    const { store, actor } = await newOwner()
    const seen: string[] = []
    const ops = identityWith({
      name: 'test.tag',
      async seed(tx, household, ctx) {
        // The default flags seeded before this one are already visible in the same transaction.
        const flags = await tx
          .selectFrom('flags')
          .select('id')
          .where('household_id', '=', household.id)
          .execute()
        seen.push(`${household.name}: ${flags.length} flags`)
        await tx
          .insertInto('tags')
          .values({
            household_id: household.id,
            id: ulid(),
            name: 'Seeded',
            color: null,
            created_at: ctx.now,
            updated_at: ctx.now,
          })
          .execute()
      },
    })
    const householdId = ulid()
    const { version } = await runMutation(
      store.db,
      ops.households.create,
      { id: householdId, name: 'Seeded home' },
      { ...actor, householdId, role: 'owner' },
    )
    expect(seen).toEqual(['Seeded home: 6 flags'])
    const tags = await store.db
      .selectFrom('tags')
      .select('name')
      .where('household_id', '=', householdId)
      .execute()
    expect(tags).toEqual([{ name: 'Seeded' }])
    expect(version).toBe(1)
  })

  it('refuse the household whole when one throws', async () => {
    const { store, actor } = await newOwner()
    const ops = identityWith({
      name: 'test.refuse',
      async seed() {
        throw new Error('seeder failed')
      },
    })
    const householdId = ulid()
    await expect(
      runMutation(
        store.db,
        ops.households.create,
        { id: householdId, name: 'Never' },
        { ...actor, householdId, role: 'owner' },
      ),
    ).rejects.toThrow('seeder failed')
    const household = await store.db
      .selectFrom('households')
      .select('id')
      .where('id', '=', householdId)
      .executeTakeFirst()
    expect(household).toBeUndefined()
    const flags = await store.db
      .selectFrom('flags')
      .select('id')
      .where('household_id', '=', householdId)
      .execute()
    expect(flags).toEqual([])
    const user = await store.db
      .selectFrom('users')
      .select('default_household_id')
      .where('id', '=', actor.userId)
      .executeTakeFirstOrThrow()
    expect(user.default_household_id).toBeNull()
  })
})
