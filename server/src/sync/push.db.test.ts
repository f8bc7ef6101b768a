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

  it('skips what the device record says was processed, whatever lmid its caller expected', async () => {
    const store = await sharedStore()
    const device = await newDevice()
    const first = { id: 1, name: 'tags.create', args: { id: ulid(), name: 'Once' } }
    await pushMutations(store, device, [first], undefined, {}, 0)
    // A retry from a session that did not hear the first answer: it still expects lmid 0.
    const retry = await pushMutations(
      store,
      device,
      [first, { id: 2, name: 'tags.create', args: { id: ulid(), name: 'Twice' } }],
      undefined,
      {},
      0,
    )
    expect(retry.results.map((r) => r.status)).toEqual(['skipped', 'applied'])
    expect(retry.lmid).toBe(2)
    const names = await store.db
      .selectFrom('tags')
      .select('name')
      .where('household_id', '=', device.householdId)
      .orderBy('name')
      .execute()
    expect(names.map((t) => t.name)).toEqual(['Once', 'Twice'])
  })

  it('authorizes each mutation as the key stands now, not as its caller last saw it', async () => {
    const store = await sharedStore()
    const device = await newDevice()
    await store.db
      .updateTable('api_keys')
      .set({ scopes: device.scopes.filter((s) => s !== 'write:tags') })
      .where('id', '=', device.keyId)
      .execute()
    const outcome = await pushMutations(
      store,
      device,
      [{ id: 1, name: 'tags.create', args: { id: ulid(), name: 'Not allowed' } }],
      undefined,
      {},
      0,
    )
    expect(outcome.results).toMatchObject([{ id: 1, status: 'rejected', code: 'INSUFFICIENT_SCOPE' }])
    expect(outcome.device.scopes).not.toContain('write:tags')
    await store.db
      .updateTable('api_keys')
      .set({ revoked_at: new Date() })
      .where('id', '=', device.keyId)
      .execute()
    await expect(
      pushMutations(
        store,
        device,
        [{ id: 2, name: 'tags.create', args: { id: ulid(), name: 'Revoked' } }],
        undefined,
        {},
        1,
      ),
    ).rejects.toMatchObject({ status: 401, code: 'UNAUTHENTICATED' })
    const tags = await store.db
      .selectFrom('tags')
      .select('name')
      .where('household_id', '=', device.householdId)
      .execute()
    expect(tags).toEqual([])
  })
})
