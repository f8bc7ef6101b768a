import { createHearth, HearthError } from '@hearth/client'
import { SCOPES } from '@hearth/engine'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { afterEach, describe, expect, it } from 'vitest'
import { issueKey, newOwner, type TestMember, useTestServer } from '../src/index.ts'
import { closeDevice, closeDevices, eventually, newDevice, newDeviceFolder } from './devices.ts'

const server = useTestServer()
afterEach(async () => {
  await closeDevices()
})

/** The owner's household's tags as the server holds them, by id. */
async function serverTags(householdId: string) {
  const rows = await server.store.db
    .selectFrom('tags')
    .select(['id', 'name'])
    .where('household_id', '=', householdId)
    .execute()
  return new Map(rows.map((r) => [r.id, r.name]))
}

describe("household: 'current'", () => {
  it('opens the key’s default household, as the REST paths do', async () => {
    const owner = await newOwner(server)
    await owner.api.post('/households/current/tags', { name: 'From REST' })
    const device = await newDevice(server, owner, { household: 'current' })
    expect(device.householdId).toBe(owner.householdId)
    await device.sync.whenSynced()
    expect((await device.query.tags.list()).map((t) => t.name)).toEqual(['From REST'])
    await device.mutate.tags.create({ name: 'From the device' })
    await device.sync.whenSynced()
    expect([...(await serverTags(owner.householdId)).values()].sort()).toEqual([
      'From REST',
      'From the device',
    ])
  })

  it('reopens offline on the household its store already holds', async () => {
    const owner = await newOwner(server)
    const folder = await newDeviceFolder()
    const first = await newDevice(server, owner, { household: 'current', store: folder })
    await first.sync.whenSynced()
    await closeDevice(first)
    // Nothing listens on port 9 of the loopback: the server cannot be asked.
    const again = await newDevice(server, owner, {
      household: 'current',
      store: folder,
      serverUrl: 'http://127.0.0.1:9',
    })
    expect(again.householdId).toBe(owner.householdId)
    expect(again.clientId).toBe(first.clientId)
  })

  // Each attempt opens a fresh in-memory replica first (seconds each on a loaded machine).
  it('is refused clearly without a server to ask, or with a key the server does not know', {
    timeout: 120_000,
  }, async () => {
    const owner = await newOwner(server)
    const open = (options: { serverUrl?: string; token: string }) =>
      createHearth({ household: 'current', store: 'memory://', connect: false, ...options })
    await expect(open({ token: owner.api.token })).rejects.toMatchObject({
      name: 'HearthError',
      code: 'HOUSEHOLD_UNRESOLVED',
      message: expect.stringContaining('needs serverUrl'),
    })
    await expect(open({ serverUrl: server.url, token: 'hth_wrong' })).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
      status: 401,
    })
    await expect(open({ serverUrl: 'http://127.0.0.1:9', token: owner.api.token })).rejects.toMatchObject({
      code: 'HOUSEHOLD_UNRESOLVED',
      message: expect.stringContaining('did not answer'),
    })
  })
})

describe('the device store', () => {
  it('opens with a 32MB buffer pool, in a folder and in memory', async () => {
    // PGlite lays its whole pool out as it opens: initdb's 128MB cost about 400 ms of every open.
    const owner = await newOwner(server)
    const inFolder = await newDevice(server, owner, { connect: false })
    const inMemory = await createHearth({
      household: owner.householdId,
      token: owner.api.token,
      store: 'memory://',
    })
    try {
      for (const device of [inFolder, inMemory]) {
        const { rows } = await sql<{ shared_buffers: string }>`show shared_buffers`.execute(device.store.db)
        expect(rows[0]?.shared_buffers).toBe('32MB')
      }
    } finally {
      await inMemory.close()
    }
  })
})

describe('whenSynced', () => {
  it('rejects at once with the cause when the key is wrong', async () => {
    const owner = await newOwner(server)
    const device = await newDevice(server, { ...owner, api: { ...owner.api, token: 'hth_not_a_key' } })
    const started = Date.now()
    const error = await device.sync.whenSynced({ timeoutMs: 20_000 }).catch((e) => e)
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(error).toBeInstanceOf(HearthError)
    expect(error).toMatchObject({ code: 'UNAUTHENTICATED', message: expect.stringContaining('API key') })
    expect(device.sync.status.error).toMatchObject({ code: 'UNAUTHENTICATED' })
    // Asked again later, it answers the same at once.
    await expect(device.sync.whenSynced()).rejects.toMatchObject({ code: 'UNAUTHENTICATED' })
  })

  it('rejects at once when the key lacks the scope to sync', async () => {
    const owner = await newOwner(server)
    const token = await issueKey(
      server,
      owner.userId,
      SCOPES.filter((s) => s !== 'read:households'),
    )
    const device = await newDevice(server, { ...owner, api: { ...owner.api, token } })
    const started = Date.now()
    await expect(device.sync.whenSynced({ timeoutMs: 20_000 })).rejects.toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      message: expect.stringContaining('read:households'),
    })
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  it('times out with SYNC_TIMEOUT while the server cannot be reached', async () => {
    const owner = await newOwner(server)
    const device = await newDevice(server, owner, { serverUrl: 'http://127.0.0.1:9' })
    await expect(device.sync.whenSynced({ timeoutMs: 300 })).rejects.toMatchObject({
      code: 'SYNC_TIMEOUT',
      message: expect.stringContaining('Not synced after 300 ms'),
    })
  })
})

describe('mutate', () => {
  it('gives a new row a ULID when the call leaves the id out, the same on device and server', async () => {
    const owner = await newOwner(server)
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    const tag = await device.mutate.tags.create({ name: 'No id given' })
    expect(tag.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/)
    const given = ulid()
    expect((await device.mutate.tags.create({ id: given, name: 'Id given' })).id).toBe(given)
    await device.sync.whenSynced()
    const onServer = await serverTags(owner.householdId)
    expect(onServer.get(tag.id)).toBe('No id given')
    expect(onServer.get(given)).toBe('Id given')
  })
})

describe('sync status for apps', () => {
  /** Two devices of one household, both synced. */
  async function pair(owner: TestMember) {
    const a = await newDevice(server, owner)
    const b = await newDevice(server, owner)
    await Promise.all([a.sync.whenSynced(), b.sync.whenSynced()])
    return { a, b }
  }

  it('tells when the replica last synced and how many mutations wait', async () => {
    const owner = await newOwner(server)
    const device = await newDevice(server, owner, { connect: false })
    expect(device.sync.status).toMatchObject({ state: 'offline', lastSyncedAt: null, error: null })
    const before = new Date()
    device.sync.connect()
    await device.sync.whenSynced()
    expect(device.sync.status.lastSyncedAt!.getTime()).toBeGreaterThanOrEqual(before.getTime())

    await device.sync.disconnect()
    const synced = device.sync.status.lastSyncedAt
    await device.mutate.tags.create({ name: 'One' })
    await device.mutate.tags.create({ name: 'Two' })
    // Offline, the badge shows what waits and since when the data is from.
    expect(device.sync.status).toMatchObject({ state: 'offline', pending: 2, lastSyncedAt: synced })

    device.sync.connect()
    await device.sync.whenSynced()
    expect(device.sync.status.pending).toBe(0)
    expect(device.sync.status.lastSyncedAt!.getTime()).toBeGreaterThan(synced!.getTime())
  })

  it('keeps the refused mutations, newest first, for the app to show', async () => {
    const owner = await newOwner(server)
    const { a, b } = await pair(owner)
    const first = await a.mutate.tags.create({ name: 'First' })
    const second = await a.mutate.tags.create({ name: 'Second' })
    await a.sync.whenSynced()
    await eventually(async () => expect(await b.query.tags.list()).toHaveLength(2))

    await a.sync.disconnect()
    await a.mutate.tags.update({ id: first.id, name: 'First, renamed offline' })
    await a.mutate.tags.update({ id: second.id, name: 'Second, renamed offline' })
    await b.mutate.tags.delete({ id: first.id })
    await b.mutate.tags.delete({ id: second.id })
    await b.sync.whenSynced()
    expect(a.sync.rejected).toEqual([])

    a.sync.connect()
    await a.sync.whenSynced()
    await eventually(() => expect(a.sync.rejected).toHaveLength(2))
    expect(a.sync.rejected.map((r) => [r.mutation.name, (r.mutation.args as { id: string }).id])).toEqual([
      ['tags.update', second.id],
      ['tags.update', first.id],
    ])
    expect(a.sync.rejected[0]).toMatchObject({ code: 'NOT_FOUND', at: expect.any(Date) })
    expect(a.sync.status.pending).toBe(0)
  })
})
