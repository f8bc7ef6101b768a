import { ulid } from 'ulidx'
import { afterEach, describe, expect, it } from 'vitest'
import { Awareness, encodeAwarenessUpdate } from 'y-protocols/awareness'
import * as Y from 'yjs'
import { useTestServer } from '../src/index.ts'
import { closeDevice, closeDevices, eventually, newDevice } from './devices.ts'
import { rawSocket } from './socket.ts'

const server = useTestServer()
afterEach(closeDevices)

describe('presence', () => {
  it('shows which members and devices are online and what they share, until they leave', async () => {
    const owner = await server.newOwner()
    const a = await newDevice(server, owner, { deviceName: 'Phone' })
    const b = await newDevice(server, owner, { deviceName: 'Laptop' })
    await Promise.all([a.sync.whenSynced(), b.sync.whenSynced()])
    a.presence.set({ screen: 'budget' })
    await eventually(() =>
      expect(b.presence.list()).toEqual([
        {
          userId: owner.userId,
          clientId: a.clientId,
          deviceName: 'Phone',
          state: { screen: 'budget' },
          self: false,
        },
      ]),
    )
    expect(a.presence.list()).toEqual([expect.objectContaining({ clientId: a.clientId, self: true })])
    a.presence.set({ screen: 'accounts' })
    await eventually(() => expect(b.presence.list()[0]?.state).toEqual({ screen: 'accounts' }))

    await closeDevice(a)
    await eventually(() => expect(b.presence.list()).toEqual([]))
  })

  it('stamps every state with the identity the server knows, whatever the device claims', async () => {
    const owner = await server.newOwner()
    const b = await newDevice(server, owner)
    await b.sync.whenSynced()
    const socket = await rawSocket(server.url)
    const clientId = ulid()
    socket.send({
      type: 'hello',
      token: owner.api.token,
      householdId: owner.householdId,
      clientId,
      cursor: 0,
    })
    await socket.next('welcome')
    const liar = new Awareness(new Y.Doc())
    liar.setLocalState({ view: { screen: 'x' }, member: { userId: 'someone-else', clientId: 'forged' } })
    const update = Buffer.from(encodeAwarenessUpdate(liar, [liar.clientID])).toString('base64')
    socket.send({ type: 'presence', update })
    await eventually(() =>
      expect(b.presence.list()).toEqual([expect.objectContaining({ userId: owner.userId, clientId })]),
    )
    liar.destroy()
    socket.close()
    await eventually(() => expect(b.presence.list()).toEqual([]))
  })
})
