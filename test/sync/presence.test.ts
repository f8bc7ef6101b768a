import * as decoding from 'lib0/decoding'
import * as encoding from 'lib0/encoding'
import { ulid } from 'ulidx'
import { afterEach, describe, expect, it } from 'vitest'
import { Awareness, encodeAwarenessUpdate } from 'y-protocols/awareness'
import * as Y from 'yjs'
import { type TestMember, useTestServer } from '../src/index.ts'
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

  it('keeps one state per device however many ids an update names, and never one of another device', async () => {
    const owner = await server.newOwner()
    const b = await newDevice(server, owner)
    const victim = await newDevice(server, owner, { deviceName: 'Victim' })
    await Promise.all([b.sync.whenSynced(), victim.sync.whenSynced()])
    victim.presence.set({ screen: 'budget' })
    await eventually(() => expect(b.presence.list()).toHaveLength(1))
    const attacker = await joinedSocket(owner)
    // A flood: one update naming 1,300 ids is dropped whole.
    const flood = new Awareness(new Y.Doc())
    const many = Array.from({ length: 1300 }, (_, i) => [i + 1, 1, '{"view":{}}'] as const)
    attacker.send({ type: 'presence', update: Buffer.from(encodeEntries(many)).toString('base64') })
    // Speaking for the victim's id, as seen by another device, lands on the attacker's own id.
    const victimId = await presenceIdOf(owner)
    attacker.send({
      type: 'presence',
      update: Buffer.from(encodeEntries([[victimId, 99, '{"view":{"screen":"forged"}}']])).toString('base64'),
    })
    await eventually(() => expect(b.presence.list()).toHaveLength(2))
    const entries = b.presence.list()
    expect(entries.find((e) => e.clientId === victim.clientId)?.state).toEqual({ screen: 'budget' })
    expect(entries.find((e) => e.clientId === attacker.clientId)?.state).toEqual({ screen: 'forged' })
    flood.destroy()
    attacker.close()
  })

  it('shows a device that comes back under its own identity, whoever spoke meanwhile', async () => {
    const owner = await server.newOwner()
    const b = await newDevice(server, owner)
    const phone = await newDevice(server, owner, { deviceName: 'Phone' })
    await Promise.all([b.sync.whenSynced(), phone.sync.whenSynced()])
    phone.presence.set({ screen: 'budget' })
    await eventually(() => expect(b.presence.list()).toHaveLength(1))
    const phoneId = await presenceIdOf(owner)
    await phone.sync.disconnect()
    await eventually(() => expect(b.presence.list()).toEqual([]))
    // Another session names the phone's id while the phone is away.
    const other = await joinedSocket(owner)
    other.send({
      type: 'presence',
      update: Buffer.from(encodeEntries([[phoneId, 50, '{"view":{"screen":"claimed"}}']])).toString('base64'),
    })
    await eventually(() => expect(b.presence.list()).toHaveLength(1))
    // The same phone, same awareness, reconnects and announces itself.
    phone.sync.connect()
    await phone.sync.whenSynced()
    await eventually(() =>
      expect(b.presence.list().find((e) => e.clientId === phone.clientId)).toMatchObject({
        deviceName: 'Phone',
        state: { screen: 'budget' },
      }),
    )
    expect(b.presence.list().find((e) => e.clientId === other.clientId)?.state).toEqual({ screen: 'claimed' })
    other.close()
  })

  it('relays a burst of updates from one device as a few, ending on the newest', async () => {
    const owner = await server.newOwner()
    const b = await newDevice(server, owner)
    await b.sync.whenSynced()
    const sender = await joinedSocket(owner)
    let received = 0
    b.on('presence', () => received++)
    for (let clock = 1; clock <= 200; clock++) {
      sender.send({
        type: 'presence',
        update: Buffer.from(encodeEntries([[7, clock, `{"view":{"n":${clock}}}`]])).toString('base64'),
      })
    }
    await eventually(() => expect(b.presence.list()[0]?.state).toEqual({ n: 200 }))
    // 200 updates sent back to back: the first at once, the rest folded into a few.
    expect(received).toBeLessThan(10)
    sender.close()
  })

  it('refuses a state larger than 2,048 characters', async () => {
    const owner = await server.newOwner()
    const b = await newDevice(server, owner)
    await b.sync.whenSynced()
    const sender = await joinedSocket(owner)
    sender.send({
      type: 'presence',
      update: Buffer.from(
        encodeEntries([[7, 1, JSON.stringify({ view: { x: 'y'.repeat(3000) } })]]),
      ).toString('base64'),
    })
    sender.send({
      type: 'presence',
      update: Buffer.from(encodeEntries([[7, 2, '{"view":{"small":true}}']])).toString('base64'),
    })
    await eventually(() => expect(b.presence.list()[0]?.state).toEqual({ small: true }))
    sender.close()
  })
})

/** A raw session of `member`, joined. */
async function joinedSocket(member: TestMember) {
  const socket = await rawSocket(server.url)
  const clientId = ulid()
  socket.send({
    type: 'hello',
    token: member.api.token,
    householdId: member.householdId,
    clientId,
    cursor: 0,
  })
  await socket.next('welcome')
  return Object.assign(socket, { clientId })
}

/** The awareness id of the one device of `member`'s household that shares a state now. */
async function presenceIdOf(member: TestMember): Promise<number> {
  const observer = await joinedSocket(member)
  const message = await observer.next('presence')
  observer.close()
  const decoder = decoding.createDecoder(new Uint8Array(Buffer.from(message.update, 'base64')))
  decoding.readVarUint(decoder)
  return decoding.readVarUint(decoder)
}

/** An awareness update of raw entries: id, clock and the state's JSON text. */
function encodeEntries(entries: readonly (readonly [number, number, string])[]): Uint8Array {
  const encoder = encoding.createEncoder()
  encoding.writeVarUint(encoder, entries.length)
  for (const [id, clock, text] of entries) {
    encoding.writeVarUint(encoder, id)
    encoding.writeVarUint(encoder, clock)
    encoding.writeVarString(encoder, text)
  }
  return encoding.toUint8Array(encoder)
}
