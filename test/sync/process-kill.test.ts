import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { syncDb } from '@hearth/engine/sync'
import { afterEach, describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { closeDevices, eventually, expectConverged, newDevice, newDeviceFolder } from './devices.ts'

const server = useTestServer()
const children: ChildProcess[] = []

afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
  await closeDevices()
})

/** Starts a device process on `folder`; resolves with its acknowledged tag ids as they come. */
function startDeviceProcess(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'device-process.ts')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  children.push(child)
  const acked: string[] = []
  let ready = false
  let buffer = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString()
    const lines = buffer.split('\n')
    buffer = lines.pop()!
    for (const line of lines) {
      if (line === 'ready') ready = true
      const match = /^acked \d+ (\S+)$/.exec(line)
      if (match) acked.push(match[1]!)
    }
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return { child, acked, exited, isReady: () => ready }
}

describe('a device process killed mid-queue', () => {
  it('delivers every queued mutation exactly once after a restart', async () => {
    const owner = await server.newOwner()
    const folder = await newDeviceFolder()
    const proc = startDeviceProcess({
      HEARTH_SERVER_URL: server.url,
      HEARTH_TOKEN: owner.api.token,
      HEARTH_HOUSEHOLD: owner.householdId,
      HEARTH_STORE: folder,
      HEARTH_OFFLINE_AFTER: '20',
    })
    await eventually(() => expect(proc.acked.length).toBeGreaterThanOrEqual(40), 60_000)
    proc.child.kill('SIGKILL')
    await proc.exited
    const acked = [...proc.acked]
    // Some went out before the device went offline; the rest were only queued when it died.
    const before = await server.store.db
      .selectFrom('tags')
      .select('id')
      .where('household_id', '=', owner.householdId)
      .execute()
    expect(before.length).toBeGreaterThan(0)
    expect(before.length).toBeLessThan(acked.length)

    // The same folder in a new process: the queue and the replica are reconciled, then synced.
    const device = await newDevice(server, owner, { store: folder })
    await expectConverged(server, owner.householdId, [device])
    const tags = await server.store.db
      .selectFrom('tags')
      .select('id')
      .where('household_id', '=', owner.householdId)
      .execute()
    const onServer = new Set(tags.map((t) => t.id))
    // Every acknowledged mutation arrived; at most the one in flight at the kill arrived besides.
    for (const id of acked) expect(onServer.has(id), id).toBe(true)
    expect(tags.length - acked.length).toBeLessThanOrEqual(1)
    // Exactly once: the server ran each mutation id once, refused none, and its lmid is the last.
    const record = await syncDb(server.store.db)
      .selectFrom('sync_clients')
      .select('lmid')
      .where('client_id', '=', device.clientId)
      .executeTakeFirstOrThrow()
    expect(record.lmid).toBe(tags.length)
    const rejections = await syncDb(server.store.db)
      .selectFrom('sync_rejections')
      .select('code')
      .where('client_id', '=', device.clientId)
      .execute()
    expect(rejections).toEqual([])
  }, 180_000)
})
