import { trimChangeLog } from '@hearth/engine/sync'
import { ulid } from 'ulidx'
import { afterEach, describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { closeDevices, eventually, expectConverged, newDevice } from './devices.ts'
import { rawSocket } from './socket.ts'

const server = useTestServer()
afterEach(closeDevices)

/** Trims all of a household's change log, as the window would after long enough. */
function trimAll(householdId: string) {
  return trimChangeLog(server.store.db, new Date(Date.now() + 60_000), { householdId })
}

describe('the change-log window', () => {
  it('resets a device behind the window from a snapshot after it pushed its queue', async () => {
    const owner = await server.newOwner()
    const a = await newDevice(server, owner)
    const b = await newDevice(server, owner)
    await Promise.all([a.sync.whenSynced(), b.sync.whenSynced()])
    await a.sync.disconnect()
    const offline = ulid()
    await a.mutate.tags.create({ id: offline, name: 'Made offline' })
    for (let i = 0; i < 3; i++) await b.mutate.tags.create({ id: ulid(), name: `B tag ${i}` })
    await b.sync.whenSynced()
    expect(await trimAll(owner.householdId)).toBeGreaterThan(0)

    const resets: string[] = []
    a.on('reset', (r) => resets.push(r.reason))
    a.sync.connect()
    await eventually(() => expect(resets).toEqual(['LOG_WINDOW']))
    await expectConverged(server, owner.householdId, [a, b])
    expect((await a.query.tags.list({})).map((t) => t.name)).toEqual([
      'B tag 0',
      'B tag 1',
      'B tag 2',
      'Made offline',
    ])
  })

  it('keeps serving deltas to a device within the window', async () => {
    const owner = await server.newOwner()
    const socket = await rawSocket(server.url)
    socket.send({
      type: 'hello',
      token: owner.api.token,
      householdId: owner.householdId,
      clientId: ulid(),
      cursor: 0,
    })
    const { version } = await socket.next('welcome')
    await trimAll(owner.householdId)
    socket.close()

    const late = await rawSocket(server.url)
    late.send({
      type: 'hello',
      token: owner.api.token,
      householdId: owner.householdId,
      clientId: ulid(),
      cursor: 0,
    })
    await late.next('welcome')
    expect(await late.next('reset')).toMatchObject({ reason: 'LOG_WINDOW' })
    late.close()

    const current = await rawSocket(server.url)
    current.send({
      type: 'hello',
      token: owner.api.token,
      householdId: owner.householdId,
      clientId: ulid(),
      cursor: version,
    })
    await current.next('welcome')
    expect(await current.next('delta')).toMatchObject({ fromVersion: version, version, changes: [] })
    current.close()
  })
})
