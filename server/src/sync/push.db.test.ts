import { householdVersion, operations, type RowChange, runMutation, SCOPES } from '@hearth/engine'
import { readDelta, syncDb } from '@hearth/engine/sync'
import { newHousehold, sharedStore } from '@hearth/test/store'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { mintApiKey } from '../auth/api-key-token.ts'
import type { Device } from './devices.ts'
import { pushMutations } from './push.ts'

async function newDevice(): Promise<Device> {
  const store = await sharedStore()
  const ctx = await newHousehold(store)
  const clientId = ulid()
  await syncDb(store.db)
    .insertInto('sync_clients')
    .values({ client_id: clientId, household_id: ctx.householdId, user_id: ctx.userId, device_name: null })
    .execute()
  // The push checks the key again, so the device's key is a real one.
  const minted = mintApiKey()
  const keyId = ulid()
  await runMutation(
    store.db,
    operations.apiKeys.create,
    { id: keyId, name: 'device', scopes: [...ctx.scopes], keyHash: minted.hash, prefix: minted.prefix },
    { userId: ctx.userId, scopes: [...SCOPES], now: new Date() },
  )
  return {
    userId: ctx.userId,
    keyId,
    scopes: [...ctx.scopes],
    clientId,
    householdId: ctx.householdId,
    role: 'owner',
  }
}

async function logSince(householdId: string, since: number): Promise<RowChange[]> {
  const store = await sharedStore()
  const changes: RowChange[] = []
  await readDelta(store.db, householdId, since, { scopes: ['read:tags', 'read:households'] }, (page) => {
    changes.push(...page.changes)
  })
  return changes
}

describe('pushMutations', () => {
  it('hands back the delta it committed, the change log rows of its own versions', async () => {
    const store = await sharedStore()
    const device = await newDevice()
    const before = await householdVersion(store.db, device.householdId)
    const outcome = await pushMutations(
      store,
      device,
      [
        { id: 1, name: 'tags.create', args: { id: ulid(), name: 'Home' } },
        { id: 2, name: 'tags.create', args: { id: ulid(), name: 'home' } },
        { id: 3, name: 'tags.create', args: { id: ulid(), name: 'Trips' } },
      ],
      undefined,
      // One transaction however slow this machine is.
      { maxMs: 60_000 },
    )
    expect(outcome.results.map((r) => r.status)).toEqual(['applied', 'rejected', 'applied'])
    const after = await householdVersion(store.db, device.householdId)
    expect(after).toBe(before + 2)
    expect(outcome.committed).toMatchObject({
      since: before,
      version: after,
      lmids: new Map([[device.clientId, 3]]),
    })
    expect(outcome.committed!.changes).toEqual(await logSince(device.householdId, before))
    expect(outcome.committed!.changes.map((c) => c.row?.name)).toEqual(['Home', 'Trips'])
  })

  it('hands back none when nothing was applied or the push took several transactions', async () => {
    const store = await sharedStore()
    const device = await newDevice()
    const refused = await pushMutations(store, device, [{ id: 1, name: 'tags.create', args: { name: '' } }])
    expect(refused.results[0]!.status).toBe('rejected')
    expect(refused.committed).toBeUndefined()
    const batched = await pushMutations(
      store,
      device,
      [
        { id: 2, name: 'tags.create', args: { id: ulid(), name: 'A' } },
        { id: 3, name: 'tags.create', args: { id: ulid(), name: 'B' } },
      ],
      undefined,
      { maxMutations: 1 },
    )
    expect(batched.results.map((r) => r.status)).toEqual(['applied', 'applied'])
    expect(batched.committed).toBeUndefined()
  })
})
