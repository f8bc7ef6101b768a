import { changesSince, operations, runMutation, runQuery } from '@hearth/engine'
import { newHousehold, sharedStore } from '@hearth/test/store'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'

describe('identity mutators', () => {
  it('creates a household with its creator as owner and logs both rows at version 1', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store, { baseCurrency: 'EUR', timeZone: 'Europe/Berlin' })
    const household = await runQuery(store.db, operations.households.get, {}, ctx)
    expect(household).toMatchObject({ baseCurrency: 'EUR', timeZone: 'Europe/Berlin', dataLanguage: 'en' })
    const members = await runQuery(store.db, operations.members.list, {}, ctx)
    expect(members).toEqual([expect.objectContaining({ userId: ctx.userId, role: 'owner' })])
    const changes = await changesSince(store.db, ctx.householdId, 0)
    const logged = changes.filter((c) => c.table !== 'flags').map((c) => [c.version, c.table])
    expect(logged).toEqual([
      [1, 'households'],
      [1, 'memberships'],
    ])
    // The default flags are seeded in the same mutation, so they share its version.
    expect(changes.filter((c) => c.table === 'flags').every((c) => c.version === 1)).toBe(true)
  })

  it('bumps the household version once per mutation', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const { version } = await runMutation(store.db, operations.households.update, { name: 'Renamed' }, ctx)
    expect(version).toBe(2)
    const changes = await changesSince(store.db, ctx.householdId, 1)
    expect(changes).toEqual([expect.objectContaining({ version: 2, table: 'households', op: 'upsert' })])
    expect(changes[0]?.row).toMatchObject({ name: 'Renamed' })
  })

  it('refuses an update by a member that is not an owner', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    await expect(
      runMutation(store.db, operations.households.update, { name: 'Mine now' }, { ...ctx, role: 'member' }),
    ).rejects.toMatchObject({ status: 403, code: 'OWNER_ONLY' })
  })

  it('refuses a key with scopes the caller does not hold', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const args = {
      id: ulid(),
      name: 'reader',
      scopes: ['read:accounts', 'write:accounts'],
      keyHash: 'a'.repeat(64),
      prefix: 'hk_test',
    }
    await expect(
      runMutation(store.db, operations.apiKeys.create, args, {
        ...ctx,
        scopes: ['write:profile', 'read:accounts'],
      }),
    ).rejects.toMatchObject({ status: 403, code: 'SCOPE_NOT_GRANTABLE' })
  })

  it('rolls back every row of a mutation that fails halfway', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const otherHousehold = ulid()
    // The household insert succeeds, then the membership insert fails on the unknown user.
    await expect(
      runMutation(
        store.db,
        operations.households.create,
        { id: otherHousehold, name: 'Ghost' },
        { ...ctx, userId: ulid(), householdId: otherHousehold },
      ),
    ).rejects.toThrow()
    const row = await store.db
      .selectFrom('households')
      .select('id')
      .where('id', '=', otherHousehold)
      .executeTakeFirst()
    expect(row).toBeUndefined()
    expect(await changesSince(store.db, otherHousehold, 0)).toEqual([])
  })
})
