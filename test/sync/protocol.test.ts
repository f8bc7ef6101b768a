import { SCOPES } from '@hearth/engine'
import type { RunningServer } from '@hearth/server'
import { ulid } from 'ulidx'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueKey, newOwner, startTestServer, type TestMember } from '../src/index.ts'
import { joinedSocket, rawSocket } from './socket.ts'

let server: RunningServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

/** A socket that said hello for `member` as a new device and read its welcome and snapshot. */
function joined(member: TestMember, token = member.api.token, clientId = ulid()) {
  return joinedSocket(server.url, member, { token, clientId })
}

function createAccount(id: number, accountId = ulid()) {
  return { id, name: 'accounts.create', args: { id: accountId, name: `Account ${id}`, type: 'cash' } }
}

describe('sync protocol', () => {
  it('welcomes a member with their role and scopes, then sends a snapshot at the household version', async () => {
    const owner = await newOwner(server)
    const { welcome, snapshot, socket } = await joined(owner)
    expect(welcome).toMatchObject({
      v: 1,
      householdId: owner.householdId,
      userId: owner.userId,
      role: 'owner',
      lmid: 0,
    })
    expect(snapshot).toMatchObject({ v: 1, version: welcome.version, more: false })
    socket.close()
  })

  it('accepts the key as an Authorization header instead of in hello', async () => {
    const owner = await newOwner(server)
    const socket = await rawSocket(server.url, { authorization: `Bearer ${owner.api.token}` })
    socket.send({ type: 'hello', householdId: owner.householdId, clientId: ulid(), cursor: 0 })
    expect(await socket.next('welcome')).toMatchObject({ userId: owner.userId })
    socket.close()
  })

  it('refuses a household the key’s user is not a member of, and closes the socket', async () => {
    const owner = await newOwner(server)
    const stranger = await newOwner(server)
    const socket = await rawSocket(server.url)
    socket.send({
      type: 'hello',
      token: stranger.api.token,
      householdId: owner.householdId,
      clientId: ulid(),
      cursor: null,
    })
    expect(await socket.next('error')).toMatchObject({ code: 'NOT_FOUND', fatal: true })
    expect((await socket.closed).code).toBe(4404)
  })

  it('refuses an unknown key and a protocol version it does not speak', async () => {
    const owner = await newOwner(server)
    const bad = await rawSocket(server.url)
    bad.send({
      type: 'hello',
      token: 'hth_nope',
      householdId: owner.householdId,
      clientId: ulid(),
      cursor: null,
    })
    expect(await bad.next('error')).toMatchObject({ code: 'UNAUTHENTICATED', fatal: true })
    expect((await bad.closed).code).toBe(4401)

    const old = await rawSocket(server.url)
    old.send({ v: 99, type: 'hello' })
    expect(await old.next('error')).toMatchObject({ code: 'PROTOCOL_VERSION', fatal: true })
  })

  it('keeps a client id bound to the household it first joined, and tells no one else it exists', async () => {
    const owner = await newOwner(server)
    const other = await newOwner(server)
    const { socket, clientId } = await joined(owner)
    socket.send({ type: 'push', mutations: [createAccount(1)] })
    expect(await socket.next('pushResult')).toMatchObject({ lmid: 1 })
    socket.close()
    // Another user naming the same id is served as a new device of their own household.
    const again = await rawSocket(server.url)
    again.send({
      type: 'hello',
      token: other.api.token,
      householdId: other.householdId,
      clientId,
      cursor: null,
    })
    expect(await again.next('welcome')).toMatchObject({ clientId, householdId: other.householdId, lmid: 0 })
    let snapshot = await again.next('snapshot')
    while (snapshot.more) snapshot = await again.next('snapshot')
    again.send({ type: 'push', mutations: [createAccount(1)] })
    expect(await again.next('pushResult')).toMatchObject({ lmid: 1, results: [{ id: 1, status: 'applied' }] })
    again.close()
    // The first device's record is its own still.
    const back = await rawSocket(server.url)
    back.send({
      type: 'hello',
      token: owner.api.token,
      householdId: owner.householdId,
      clientId,
      cursor: null,
    })
    expect(await back.next('welcome')).toMatchObject({ clientId, householdId: owner.householdId, lmid: 1 })
    back.close()
  })

  it('runs each mutation exactly once, in order, even when a device sends it again', async () => {
    const owner = await newOwner(server)
    const { socket, clientId } = await joined(owner)
    const accountId = ulid()
    socket.send({ type: 'push', mutations: [createAccount(1, accountId), createAccount(2)] })
    expect(await socket.next('pushResult')).toMatchObject({
      lmid: 2,
      results: [
        { id: 1, status: 'applied' },
        { id: 2, status: 'applied' },
      ],
    })
    // The two commits may reach the device in one delta or, when the household's announcement of
    // the first is read before the second commits, in two.
    const changes: any[] = []
    let delta: any
    do {
      delta = await socket.next('delta')
      changes.push(...delta.changes)
    } while (delta.lmid < 2)
    expect(delta.lmid).toBe(2)
    expect(changes.filter((c: any) => c.table === 'accounts')).toHaveLength(2)
    socket.close()

    // After a reconnect the device resends what it never heard confirmed: it is skipped.
    const again = await joined(owner, owner.api.token, clientId)
    expect(again.welcome.lmid).toBe(2)
    again.socket.send({
      type: 'push',
      mutations: [createAccount(1, accountId), createAccount(2), createAccount(3)],
    })
    expect((await again.socket.next('pushResult')).results.map((r: any) => r.status)).toEqual([
      'skipped',
      'skipped',
      'applied',
    ])
    const accounts = await server.store.db
      .selectFrom('accounts')
      .select('id')
      .where('household_id', '=', owner.householdId)
      .execute()
    expect(accounts).toHaveLength(3)
    again.socket.close()
  })

  it('rejects a mutation the key lacks the scope for, advances past it, and runs the next one', async () => {
    const owner = await newOwner(server)
    const readOnly = await issueKey(
      server,
      owner.userId,
      SCOPES.filter((s) => s !== 'write:transactions'),
    )
    const { socket } = await joined(owner, readOnly)
    const accountId = ulid()
    socket.send({
      type: 'push',
      mutations: [
        createAccount(1, accountId),
        {
          id: 2,
          name: 'transactions.create',
          args: { id: ulid(), accountId, date: '2024-03-10', amountCents: -100 },
        },
        { id: 3, name: 'accounts.update', args: { id: accountId, name: 'Renamed' } },
      ],
    })
    const result = await socket.next('pushResult')
    expect(result.lmid).toBe(3)
    expect(result.results).toEqual([
      { id: 1, status: 'applied' },
      expect.objectContaining({ id: 2, status: 'rejected', code: 'INSUFFICIENT_SCOPE', httpStatus: 403 }),
      { id: 3, status: 'applied' },
    ])
    const rows = await server.store.db
      .selectFrom('transactions')
      .select('id')
      .where('household_id', '=', owner.householdId)
      .execute()
    expect(rows).toEqual([])
    socket.close()
  })

  it('rejects an unknown mutator and invalid arguments with their codes', async () => {
    const owner = await newOwner(server)
    const { socket } = await joined(owner)
    socket.send({
      type: 'push',
      mutations: [
        { id: 1, name: 'accounts.explode', args: {} },
        { id: 2, name: 'accounts.create', args: { id: 'not-a-ulid', name: '', type: 'cash' } },
      ],
    })
    const { results } = await socket.next('pushResult')
    expect(results.map((r: any) => r.code)).toEqual(['UNKNOWN_MUTATOR', 'VALIDATION_FAILED'])
    socket.close()
  })

  it('tells a reconnecting device of rejections it may have missed', async () => {
    const owner = await newOwner(server)
    const { socket, clientId } = await joined(owner)
    socket.send({ type: 'push', mutations: [{ id: 1, name: 'accounts.delete', args: { id: ulid() } }] })
    await socket.next('pushResult')
    socket.close()
    const again = await rawSocket(server.url)
    again.send({
      type: 'hello',
      token: owner.api.token,
      householdId: owner.householdId,
      clientId,
      cursor: 0,
      pendingFrom: 1,
    })
    expect((await again.next('welcome')).rejections).toEqual([
      expect.objectContaining({ id: 1, status: 'rejected', code: 'NOT_FOUND' }),
    ])
    again.close()
  })

  it('sends a delta for writes made over REST to every joined device', async () => {
    const owner = await newOwner(server)
    const { socket } = await joined(owner)
    await owner.api.patch(`/households/${owner.householdId}`, { name: 'Over REST' })
    const delta = await socket.next('delta')
    expect(delta.changes).toEqual([
      expect.objectContaining({
        table: 'households',
        op: 'upsert',
        row: expect.objectContaining({ name: 'Over REST' }),
      }),
    ])
    socket.close()
  })

  it('serves push and snapshot over HTTP too', async () => {
    const owner = await newOwner(server)
    const clientId = ulid()
    const pushed = await owner.api.post('/sync/push', {
      v: 1,
      householdId: owner.householdId,
      clientId,
      mutations: [createAccount(1)],
    })
    expect(pushed.status).toBe(200)
    expect(pushed.body).toEqual({ v: 1, lmid: 1, results: [{ id: 1, status: 'applied' }] })
    const snapshot = await owner.api.get(
      `/sync/snapshot?householdId=${owner.householdId}&clientId=${clientId}`,
    )
    expect(snapshot.status).toBe(200)
    expect(snapshot.body).toMatchObject({ v: 1, householdId: owner.householdId, lmid: 1 })
    const accounts = snapshot.body.tables.find((t: any) => t.table === 'accounts')
    expect(accounts.rows).toHaveLength(1)
    const stranger = await newOwner(server)
    const refused = await stranger.api.get(`/sync/snapshot?householdId=${owner.householdId}`)
    expect(refused.status).toBe(404)
  })

  it('sends a key nothing for changes in tables it cannot read, then the next visible change from where it was', async () => {
    const owner = await newOwner(server)
    const narrow = await issueKey(server, owner.userId, ['read:households', 'read:tags'])
    const { socket, snapshot } = await joined(owner, narrow)
    const told = snapshot.version
    for (let i = 0; i < 3; i++) {
      expect(
        (await owner.api.post(`/households/${owner.householdId}/accounts`, { name: `A${i}`, type: 'cash' }))
          .status,
      ).toBe(201)
    }
    await expect(socket.next('delta', 500)).rejects.toThrow(/No delta/)
    const tag = await owner.api.post(`/households/${owner.householdId}/tags`, { name: 'Seen' })
    const delta = await socket.next('delta')
    expect(delta.fromVersion).toBe(told)
    expect(delta.version).toBeGreaterThan(told + 3)
    expect(delta.changes.map((c: { table: string; row?: { id: string } }) => c.table)).toEqual(['tags'])
    expect(delta.changes[0].row.id).toBe(tag.body.id)
    socket.close()
  })
})
