import type { Scope } from '@hearth/engine'
import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import {
  apiClient,
  TEST_DATABASE_URL,
  type TestMember,
  type TestServer,
  useTestServer,
} from '../src/index.ts'
import { closeDevices, eventually, newDevice } from './devices.ts'
import { joinedSocket } from './socket.ts'

// Two instances over one database; on PGlite both serve the worker's one store in one process.
const first = useTestServer({ databaseUrl: TEST_DATABASE_URL })
const second = useTestServer({ databaseUrl: TEST_DATABASE_URL })
afterEach(closeDevices)

/** A raw session of `member` on `server`, joined and caught up. */
async function joined(server: TestServer, member: TestMember) {
  return (await joinedSocket(server.url, member)).socket
}

/** The id of the one key `member` has. */
async function keyId(member: TestMember): Promise<string> {
  const key = await first.store.db
    .selectFrom('api_keys')
    .select('id')
    .where('user_id', '=', member.userId)
    .executeTakeFirstOrThrow()
  return key.id
}

async function setScopes(server: TestServer, member: TestMember, scopes: Scope[]) {
  await server.store.db
    .updateTable('api_keys')
    .set({ scopes })
    .where('id', '=', await keyId(member))
    .execute()
}

const createTag = (member: TestMember, name: string) =>
  member.api.post(`/households/${member.householdId}/tags`, { name })

describe('a live session follows its rights', () => {
  it('closes at once when its key is revoked, and delivers nothing after', async () => {
    const owner = await first.newOwner()
    const member = await first.newMember(owner)
    const device = await newDevice(first, member)
    await device.sync.whenSynced()
    const errors: { code: string; fatal: boolean }[] = []
    device.on('error', (e) => errors.push(e))
    const raw = await joined(first, member)

    expect((await member.api.delete(`/users/me/api-keys/${await keyId(member)}`)).status).toBe(204)
    expect(await raw.closed).toEqual({ code: 4401, reason: 'KEY_REVOKED' })
    await eventually(() => expect(device.sync.status.error?.code).toBe('KEY_REVOKED'))
    expect(errors).toContainEqual(expect.objectContaining({ code: 'KEY_REVOKED', fatal: true }))

    await createTag(owner, 'After the revocation')
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(await device.query.tags.list({})).toEqual([])
    // It does not come back with a key that cannot work.
    expect(device.sync.status).toMatchObject({ state: 'offline', error: { code: 'KEY_REVOKED' } })
  })

  it('closes when the member is removed from the household', async () => {
    const owner = await first.newOwner()
    const member = await first.newMember(owner)
    const device = await newDevice(first, member)
    await device.sync.whenSynced()
    const raw = await joined(first, member)

    await first.store.db
      .deleteFrom('memberships')
      .where('household_id', '=', owner.householdId)
      .where('user_id', '=', member.userId)
      .execute()
    expect(await raw.closed).toEqual({ code: 4404, reason: 'MEMBERSHIP_ENDED' })
    await eventually(() => expect(device.sync.status.error?.code).toBe('MEMBERSHIP_ENDED'))
    await createTag(owner, 'After the removal')
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(await device.query.tags.list({})).toEqual([])
  })

  it('closes when the key loses read:households', async () => {
    const owner = await first.newOwner()
    const raw = await joined(first, owner)
    await setScopes(first, owner, ['read:tags', 'write:tags'])
    expect(await raw.closed).toEqual({ code: 4403, reason: 'SCOPE_REVOKED' })
  })

  it('stops sending a table whose read scope the key lost, and clears it from the device', async () => {
    const owner = await first.newOwner()
    const scopes: Scope[] = ['read:households', 'read:tags', 'read:accounts']
    const reader = await first.newMember(owner, 'member', scopes)
    const device = await newDevice(first, reader)
    await device.sync.whenSynced()
    await createTag(owner, 'Groceries')
    await eventually(async () => expect(await device.query.tags.list({})).toHaveLength(1))

    await setScopes(first, reader, ['read:households', 'read:accounts'])
    await eventually(async () => expect(await device.query.tags.list({})).toEqual([]))
    await createTag(owner, 'Holiday')
    const account = await owner.api.post(`/households/${owner.householdId}/accounts`, {
      name: 'Cash',
      type: 'cash',
    })
    await eventually(async () =>
      expect((await device.query.accounts.list({})).items.map((a) => a.id)).toContain(account.body.id),
    )
    expect(await device.query.tags.list({})).toEqual([])
    expect(device.sync.status.error).toBeNull()
  })

  it('applies a lowered role from the next push', async () => {
    const owner = await first.newOwner()
    const coOwner = await first.newMember(owner, 'owner')
    const raw = await joined(first, coOwner)
    await first.store.db
      .updateTable('memberships')
      .set({ role: 'member' })
      .where('household_id', '=', owner.householdId)
      .where('user_id', '=', coOwner.userId)
      .execute()
    await new Promise((resolve) => setTimeout(resolve, 200))
    raw.send({ type: 'push', mutations: [{ id: 1, name: 'budgets.reset', args: { month: '2026-11' } }] })
    const result = await raw.next('pushResult')
    expect(result.results[0]).toMatchObject({ status: 'rejected', code: 'OWNER_ONLY' })
    raw.close()
  })

  it('finds a revocation whose notification never came, by the rights clock within a second', async () => {
    const owner = await first.newOwner()
    const raw = await joined(first, owner)
    const id = await keyId(owner)
    // In replica mode no trigger fires: the revocation is made without announcing it, and the
    // clock is moved by hand, as its trigger would: an announcement lost on the way.
    await first.store.db.transaction().execute(async (tx) => {
      await sql`set local session_replication_role = replica`.execute(tx)
      await tx.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', id).execute()
      await sql`update rights_clock set version = version + 1`.execute(tx)
    })
    expect(await raw.closed).toEqual({ code: 4401, reason: 'KEY_REVOKED' })
  })

  it('refuses a pull for a snapshot once the key is revoked, even unannounced', async () => {
    const owner = await first.newOwner()
    const raw = await joined(first, owner)
    const id = await keyId(owner)
    await first.store.db.transaction().execute(async (tx) => {
      await sql`set local session_replication_role = replica`.execute(tx)
      await tx.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', id).execute()
    })
    raw.send({ type: 'pull', cursor: null })
    const error = await raw.next('error')
    expect(error).toMatchObject({ code: 'KEY_REVOKED', fatal: true })
    expect((await raw.closed).code).toBe(4401)
  })

  it('closes a session on another instance when the key is revoked through this one', async () => {
    const owner = await first.newOwner()
    const member = await first.newMember(owner)
    const device = await newDevice(second, member)
    await device.sync.whenSynced()
    const raw = await joined(second, member)
    const throughFirst = apiClient(first.url, member.api.token)
    expect((await throughFirst.delete(`/users/me/api-keys/${await keyId(member)}`)).status).toBe(204)
    expect(await raw.closed).toEqual({ code: 4401, reason: 'KEY_REVOKED' })
    await eventually(() => expect(device.sync.status.error?.code).toBe('KEY_REVOKED'))
  })

  it('cuts off a member an owner removes over REST, and one who leaves', async () => {
    const owner = await first.newOwner()
    const removed = await first.newMember(owner)
    const leaving = await first.newMember(owner)
    const removedDevice = await newDevice(first, removed)
    const leavingDevice = await newDevice(first, leaving)
    await Promise.all([removedDevice.sync.whenSynced(), leavingDevice.sync.whenSynced()])
    const members = `/households/${owner.householdId}/members`
    expect((await owner.api.delete(`${members}/${removed.userId}`)).status).toBe(204)
    expect((await leaving.api.delete(`${members}/me`)).status).toBe(204)
    await eventually(() => expect(removedDevice.sync.status.error?.code).toBe('MEMBERSHIP_ENDED'))
    await eventually(() => expect(leavingDevice.sync.status.error?.code).toBe('MEMBERSHIP_ENDED'))
  })

  it('cuts off a member’s device when an owner revokes the member’s key over REST', async () => {
    const owner = await first.newOwner()
    const member = await first.newMember(owner)
    const device = await newDevice(first, member)
    await device.sync.whenSynced()
    const path = `/households/${owner.householdId}/members/${member.userId}/api-keys/${await keyId(member)}`
    expect((await owner.api.delete(path)).status).toBe(204)
    await eventually(() => expect(device.sync.status.error?.code).toBe('KEY_REVOKED'))
  })
})
