import { appendFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ulid } from 'ulidx'
import { afterEach, describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import {
  closeDevice,
  closeDevices,
  eventually,
  expectConverged,
  newDevice,
  newDeviceFolder,
} from './devices.ts'

const server = useTestServer()
afterEach(closeDevices)

function queueLines(folder: string) {
  return readFileSync(join(folder, 'queue.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
}

async function serverTags(householdId: string) {
  return server.store.db
    .selectFrom('tags')
    .select(['id', 'name'])
    .where('household_id', '=', householdId)
    .execute()
}

describe('device durability', () => {
  it('keeps offline mutations across a restart and pushes each exactly once', async () => {
    const owner = await server.newOwner()
    const folder = await newDeviceFolder()
    const a = await newDevice(server, owner, { store: folder })
    await a.sync.whenSynced()
    await a.sync.disconnect()
    const ids = [ulid(), ulid(), ulid()]
    for (const [i, id] of ids.entries()) await a.mutate.tags.create({ id, name: `Tag ${i}` })
    expect(queueLines(folder).filter((r) => r.type === 'mutation')).toHaveLength(3)
    await closeDevice(a)

    const reopened = await newDevice(server, owner, { store: folder })
    expect(reopened.clientId).toBe(a.clientId)
    expect(reopened.sync.status.pending).toBe(3)
    expect((await reopened.query.tags.list({})).map((t) => t.name)).toEqual(['Tag 0', 'Tag 1', 'Tag 2'])
    await expectConverged(server, owner.householdId, [reopened])
    expect((await serverTags(owner.householdId)).map((t) => t.id).sort()).toEqual([...ids].sort())
    // Confirmed records leave the queue file when it is compacted: at the latest, on close.
    await closeDevice(reopened)
    expect(queueLines(folder)).toEqual([expect.objectContaining({ type: 'client', clientId: a.clientId })])
  })

  it('applies on restart a mutation that reached the queue but not the replica', async () => {
    const owner = await server.newOwner()
    const folder = await newDeviceFolder()
    const a = await newDevice(server, owner, { store: folder })
    await a.sync.whenSynced()
    await a.sync.disconnect()
    await a.mutate.tags.create({ id: ulid(), name: 'Before the crash' })
    await closeDevice(a)
    // The process died after the queue's fsync and before the replica's commit.
    const lost = ulid()
    appendFileSync(
      join(folder, 'queue.jsonl'),
      `${JSON.stringify({ type: 'mutation', id: 2, name: 'tags.create', args: { id: lost, name: 'Lost' }, at: new Date().toISOString() })}\n`,
    )
    const reopened = await newDevice(server, owner, { store: folder })
    expect(reopened.sync.status.pending).toBe(2)
    expect((await reopened.query.tags.list({})).map((t) => t.name).sort()).toEqual([
      'Before the crash',
      'Lost',
    ])
    await expectConverged(server, owner.householdId, [reopened])
    expect(await serverTags(owner.householdId)).toHaveLength(2)
  })

  it('announces a refusal by the replica once, as the error, and never pushes it again', async () => {
    const owner = await server.newOwner()
    const folder = await newDeviceFolder()
    const a = await newDevice(server, owner, { store: folder })
    await a.sync.whenSynced()
    await a.mutate.tags.create({ id: ulid(), name: 'Groceries' })
    // The push left as the call started; the server, on the same state, refuses it too.
    await expect(a.mutate.tags.create({ id: ulid(), name: 'groceries' })).rejects.toMatchObject({
      status: 409,
    })
    await expectConverged(server, owner.householdId, [a])
    expect(await serverTags(owner.householdId)).toHaveLength(1)
    expect(a.sync.rejected).toEqual([])
    expect(queueLines(folder).filter((r) => r.type === 'drop')).toHaveLength(1)
    await closeDevice(a)
    const reopened = await newDevice(server, owner, { store: folder })
    expect(reopened.sync.status.pending).toBe(0)
    await expectConverged(server, owner.householdId, [reopened])
    expect(await serverTags(owner.householdId)).toHaveLength(1)
  })

  it('reserves ids durably ahead of its pushes, so a restart never issues one again', async () => {
    const owner = await server.newOwner()
    const folder = await newDeviceFolder()
    const a = await newDevice(server, owner, { store: folder })
    await a.sync.whenSynced()
    await a.sync.disconnect()
    await a.mutate.tags.create({ id: ulid(), name: 'First' })
    await a.mutate.tags.create({ id: ulid(), name: 'Second' })
    // One reserve record ahead of the block's first mutation: a push may leave before the
    // mutation's own record is durable, and a process killed then must not reuse its id.
    const lines = queueLines(folder)
    expect(lines.map((r) => r.type)).toEqual(['client', 'reserve', 'mutation', 'mutation'])
    const [reserve, first, second] = lines.slice(1)
    expect(reserve.through).toBeGreaterThanOrEqual(second.id)
    expect(second.id).toBe(first.id + 1)
    await closeDevice(a)

    const reopened = await newDevice(server, owner, { store: folder, connect: false })
    await reopened.mutate.tags.create({ id: ulid(), name: 'After the restart' })
    const third = queueLines(folder)
      .filter((r) => r.type === 'mutation')
      .at(-1)
    expect(third.id).toBe(reserve.through + 1)
    reopened.sync.connect()
    await expectConverged(server, owner.householdId, [reopened])
    expect((await serverTags(owner.householdId)).map((t) => t.name).sort()).toEqual([
      'After the restart',
      'First',
      'Second',
    ])
  })
})

describe('live queries and status', () => {
  it('re-runs a watched query when another device changes its rows', async () => {
    const owner = await server.newOwner()
    const a = await newDevice(server, owner)
    const b = await newDevice(server, owner)
    await Promise.all([a.sync.whenSynced(), b.sync.whenSynced()])
    const seen: string[][] = []
    const stop = b.watch('accounts.list', {}, (r) => seen.push(r.items.map((x) => x.name)))
    await eventually(() => expect(seen).toEqual([[]]))
    await a.mutate.accounts.create({ id: ulid(), name: 'Savings', type: 'cash' })
    await eventually(() => expect(seen.at(-1)).toEqual(['Savings']))
    stop()
    await a.mutate.accounts.create({ id: ulid(), name: 'Wallet', type: 'cash' })
    await expectConverged(server, owner.householdId, [a, b])
    expect(seen.at(-1)).toEqual(['Savings'])
  })

  it('reports offline, pending and the synced version', async () => {
    const owner = await server.newOwner()
    const a = await newDevice(server, owner)
    await a.sync.whenSynced()
    const { version } = a.sync.status
    expect(version).toBeGreaterThan(0)
    await a.sync.disconnect()
    await a.mutate.tags.create({ id: ulid(), name: 'Offline' })
    expect(a.sync.status).toMatchObject({ state: 'offline', pending: 1, version })
    a.sync.connect()
    await a.sync.whenSynced()
    expect(a.sync.status).toMatchObject({ state: 'online', pending: 0, version: version! + 1 })
  })
  it('compacts the queue of a device that stays online, keeping it from growing for ever', async () => {
    const owner = await server.newOwner()
    const folder = await newDeviceFolder()
    const a = await newDevice(server, owner, { store: folder })
    await a.sync.whenSynced()
    for (let i = 0; i < 210; i++) await a.mutate.tags.create({ id: ulid(), name: `Tag ${i}` })
    await a.sync.whenSynced()
    // Past 200 confirmed records with nothing pending, a rebase rewrites the file to its header.
    await eventually(() => expect(queueLines(folder).length).toBeLessThan(20))
    expect(queueLines(folder)[0]).toMatchObject({ type: 'client', clientId: a.clientId })
  })
})
