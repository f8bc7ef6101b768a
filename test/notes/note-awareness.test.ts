import * as decoding from 'lib0/decoding'
import * as encoding from 'lib0/encoding'
import { ulid } from 'ulidx'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { Awareness, applyAwarenessUpdate } from 'y-protocols/awareness'
import * as Y from 'yjs'
import { TEST_DATABASE_URL, type TestMember, useTestServer } from '../src/index.ts'
import { closeDevices, eventually, newDevice } from '../sync/devices.ts'

// Who else has a note open (awareness) under the rules /sync presence keeps: one entry per socket
// with an id the server chose, its name from the member's profile, a size cap, a rate, and a
// bounded first message for whoever joins later (issue 38, item 2).
const server = useTestServer({ databaseUrl: TEST_DATABASE_URL })
const clients: NoteClient[] = []
afterEach(async () => {
  for (const client of clients.splice(0)) client.close()
  await closeDevices()
})

const MESSAGE_AWARENESS = 1
const KIB = 1024

describe('who else has a note open', { timeout: 90_000 }, () => {
  it('keeps one entry per socket through a flood of ids, and a later joiner’s first message small', async () => {
    const owner = await server.newOwner()
    const accountId = await newAccount(owner)
    const member = await server.newMember(owner, 'member', ['read:households', 'read:accounts'])
    const observer = await noteClient(owner, accountId)
    const attacker = await noteClient(member, accountId)
    // The probe's flood: 100 messages of 1,500 ids each, every id new.
    for (let m = 0; m < 100; m++) {
      attacker.sendEntries(
        Array.from({ length: 1500 }, (_, i) => [m * 1500 + i + 1, 1, '{"cursor":{"anchor":12345}}'] as const),
      )
    }
    // Then one ordinary update: it arrives, and it is the sender's only entry.
    attacker.sendEntries([[attacker.doc.clientID, 1, '{"cursor":{"anchor":1}}']])
    await eventually(() =>
      expect(observer.statesOf(member.userId)).toEqual([{ cursor: { anchor: 1 }, user: expect.anything() }]),
    )

    const joiner = await noteClient(owner, accountId)
    await eventually(() => expect(joiner.statesOf(member.userId)).toHaveLength(1))
    const firstAwareness = joiner.received.find((r) => r.type === MESSAGE_AWARENESS)!
    expect(firstAwareness.bytes).toBeLessThanOrEqual(64 * KIB)
    expect(joiner.received.reduce((sum, r) => sum + r.bytes, 0)).toBeLessThanOrEqual(64 * KIB)
    // The room still works: the REST read answers, and the observer never held more than one entry of the sender.
    expect((await owner.api.get(`/households/${owner.householdId}/accounts/${accountId}/note`)).status).toBe(
      200,
    )
    expect(observer.maxStatesOf(member.userId)).toBe(1)
  })

  it('names each editor as their profile does, whatever the socket claims', async () => {
    const owner = await server.newOwner()
    const accountId = await newAccount(owner)
    const member = await server.newMember(owner, 'member')
    expect((await member.api.patch('/users/me', { name: 'Dana' })).status).toBe(200)
    // The device first: a state nobody renews times out after 30 s, and a device can take that long to make.
    const device = await newDevice(server, member)
    const observer = await noteClient(owner, accountId)
    const liar = await noteClient(member, accountId)
    liar.sendEntries([
      [liar.doc.clientID, 1, JSON.stringify({ user: { id: owner.userId, name: 'Owner' }, cursor: 3 })],
    ])
    await eventually(() =>
      expect(observer.statesOf(member.userId)).toEqual([
        { user: { id: member.userId, name: 'Dana' }, cursor: 3 },
      ]),
    )
    expect(observer.statesOf(owner.userId)).toEqual([])
    // Through the SDK too: a device's note shows the member's profile name.
    const note = await device.notes.open({ kind: 'account', id: accountId })
    try {
      await note.whenSynced()
      await eventually(() => expect(observer.statesOf(member.userId)).toHaveLength(2))
      expect(observer.statesOf(member.userId).map((s) => s.user)).toEqual([
        { id: member.userId, name: 'Dana' },
        { id: member.userId, name: 'Dana' },
      ])
      // Nobody sees their own state come back under the id the server gave it: once the liar's
      // next update reaches the device, any echo of the device's own would have too.
      liar.sendEntries([[liar.doc.clientID, 2, JSON.stringify({ cursor: 4 })]])
      await eventually(() => expect(others(note.awareness).map((s) => s.cursor)).toContain(4))
      expect(others(note.awareness)).toEqual([{ user: { id: member.userId, name: 'Dana' }, cursor: 4 }])
      // The device's y-websocket sends back what it hears (the liar's state): that never becomes
      // the device's own state.
      liar.sendEntries([[liar.doc.clientID, 3, JSON.stringify({ cursor: 5 })]])
      await eventually(() => expect(others(note.awareness).map((s) => s.cursor)).toContain(5))
      await new Promise((resolve) => setTimeout(resolve, 600))
      expect(
        observer
          .statesOf(member.userId)
          .map((s) => s.cursor ?? null)
          .sort(),
      ).toEqual([5, null])
    } finally {
      await note.close()
    }
  })

  it('relays a burst of one socket’s updates as a few, ending on the newest', async () => {
    const owner = await server.newOwner()
    const accountId = await newAccount(owner)
    const observer = await noteClient(owner, accountId)
    const sender = await noteClient(owner, accountId)
    for (let clock = 1; clock <= 200; clock++) {
      sender.sendEntries([[sender.doc.clientID, clock, JSON.stringify({ n: clock })]])
    }
    await eventually(() =>
      expect(observer.statesOf(owner.userId)).toEqual([expect.objectContaining({ n: 200 })]),
    )
    expect(observer.received.filter((r) => r.type === MESSAGE_AWARENESS).length).toBeLessThan(10)
  })

  it('refuses a state over 2 KiB and keeps a crowded room’s first message under 64 KiB', async () => {
    const owner = await server.newOwner()
    const accountId = await newAccount(owner)
    const observer = await noteClient(owner, accountId)
    const big = await noteClient(owner, accountId)
    // 1,500 characters, 3,000 bytes: the cap is on what is sent on, in bytes.
    big.sendEntries([[big.doc.clientID, 1, JSON.stringify({ pad: 'é'.repeat(1500) })]])
    big.sendEntries([[big.doc.clientID, 2, JSON.stringify({ small: true })]])
    await eventually(() =>
      expect(observer.statesOf(owner.userId)).toEqual([expect.objectContaining({ small: true })]),
    )
    expect(observer.maxStatesOf(owner.userId)).toBe(1)
    expect(observer.received.some((r) => r.type === MESSAGE_AWARENESS && r.bytes > 2 * KIB)).toBe(false)

    // Forty sockets of the owner, each with a state as large as allowed, then one of each of two members.
    const crowd = await Promise.all(Array.from({ length: 40 }, () => noteClient(owner, accountId)))
    for (const c of crowd) c.sendEntries([[c.doc.clientID, 1, JSON.stringify({ pad: 'y'.repeat(1900) })]])
    const members = [await server.newMember(owner, 'member'), await server.newMember(owner, 'member')]
    for (const m of members) {
      const c = await noteClient(m, accountId)
      c.sendEntries([[c.doc.clientID, 1, JSON.stringify({ here: true })]])
    }
    await eventually(() => {
      for (const m of members) expect(observer.statesOf(m.userId)).toHaveLength(1)
    })
    const joiner = await noteClient(owner, accountId)
    await eventually(() => expect(joiner.statesCount()).toBeGreaterThan(2))
    for (const r of joiner.received) expect(r.bytes).toBeLessThanOrEqual(64 * KIB)
    expect(joiner.received.reduce((sum, r) => sum + r.bytes, 0)).toBeLessThanOrEqual(64 * KIB)
    // One member's many sockets do not take the others' places.
    for (const m of members) expect(joiner.statesOf(m.userId)).toHaveLength(1)
  })
})

/** A note socket opened by hand, as a browser's y-websocket would, that keeps what it hears. */
interface NoteClient {
  doc: Y.Doc
  received: { type: number; bytes: number }[]
  sendEntries(entries: readonly (readonly [number, number, string])[]): void
  statesOf(userId: string): Record<string, any>[]
  statesCount(): number
  maxStatesOf(userId: string): number
  close(): void
}

async function noteClient(member: TestMember, accountId: string): Promise<NoteClient> {
  const url = `${server.url.replace(/^http/, 'ws')}/notes/ws/${member.householdId}/account/${accountId}`
  const ws = new WebSocket(url, ['hearth-notes', `hearth-key.${member.api.token}`])
  const doc = new Y.Doc()
  const awareness = new Awareness(doc)
  awareness.setLocalState(null)
  const received: { type: number; bytes: number }[] = []
  const most = new Map<string, number>()
  const statesOf = (userId: string) =>
    [...awareness.getStates().values()].filter((s) => (s as { user?: { id?: string } }).user?.id === userId)
  ws.on('message', (data: Buffer) => {
    const bytes = new Uint8Array(data)
    const decoder = decoding.createDecoder(bytes)
    const type = decoding.readVarUint(decoder)
    received.push({ type, bytes: bytes.byteLength })
    if (type !== MESSAGE_AWARENESS) return
    applyAwarenessUpdate(awareness, decoding.readVarUint8Array(decoder), 'server')
    const counts = new Map<string, number>()
    for (const state of awareness.getStates().values()) {
      const id = (state as { user?: { id?: string } }).user?.id ?? ''
      counts.set(id, (counts.get(id) ?? 0) + 1)
    }
    for (const [id, n] of counts) most.set(id, Math.max(most.get(id) ?? 0, n))
  })
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
  const client: NoteClient = {
    doc,
    received,
    sendEntries(entries) {
      const update = encoding.createEncoder()
      encoding.writeVarUint(update, entries.length)
      for (const [id, clock, text] of entries) {
        encoding.writeVarUint(update, id)
        encoding.writeVarUint(update, clock)
        encoding.writeVarString(update, text)
      }
      const message = encoding.createEncoder()
      encoding.writeVarUint(message, MESSAGE_AWARENESS)
      encoding.writeVarUint8Array(message, encoding.toUint8Array(update))
      ws.send(encoding.toUint8Array(message))
    },
    statesOf,
    statesCount: () => awareness.getStates().size,
    maxStatesOf: (userId) => most.get(userId) ?? 0,
    close() {
      awareness.destroy()
      ws.close()
    },
  }
  clients.push(client)
  return client
}

/** The awareness states of everyone but this client itself. */
function others(awareness: Awareness): Record<string, any>[] {
  return [...awareness.getStates()].filter(([id]) => id !== awareness.clientID).map(([, s]) => s)
}

async function newAccount(member: TestMember): Promise<string> {
  const id = ulid()
  const res = await member.api.post(`/households/${member.householdId}/accounts`, {
    id,
    name: `Joint ${id.slice(-4)}`,
    type: 'cash',
  })
  expect(res.status).toBe(201)
  return id
}
