import { DEFAULT_SYNC_SOCKET_LIMITS } from '@hearth/server'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { useTestServer } from '../src/index.ts'
import { joinedSocket, type RawSocket, rawSocket } from './socket.ts'

const server = useTestServer({
  syncLimits: {
    ...DEFAULT_SYNC_SOCKET_LIMITS,
    helloFrameBytes: 1024,
    frameBytes: 64 * 1024,
    helloTimeoutMs: 300,
    maxSocketsPerAddress: 6,
    maxUnjoinedSocketsPerAddress: 3,
    maxSessionsPerKey: 2,
    maxDevicesPerKey: 4,
  },
})

/** What an upgrade to `/sync` answers: the socket opens, or the HTTP status it was refused with. */
function upgrade(url: string): Promise<{ ws: WebSocket } | { status: number; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/sync`)
    ws.once('open', () => resolve({ ws }))
    ws.once('unexpected-response', (_req, res) =>
      resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] }),
    )
    ws.once('error', reject)
  })
}

describe('sync socket limits', () => {
  it('closes a socket whose frame before hello is larger than the hello limit', async () => {
    const socket = await rawSocket(server.url)
    socket.send({ type: 'ping', padding: 'x'.repeat(2000) })
    expect((await socket.closed).code).toBe(1009)
  })

  it('closes a socket that sends no valid hello in time', async () => {
    const socket = await rawSocket(server.url)
    socket.send({ type: 'ping' })
    expect(await socket.next('pong')).toMatchObject({ type: 'pong' })
    expect(await socket.closed).toEqual({ code: 4408, reason: 'HELLO_TIMEOUT' })
  })

  it('lets a joined session send frames up to the push limit, and no larger', async () => {
    const owner = await server.newOwner()
    const socket = await rawSocket(server.url)
    socket.send({
      type: 'hello',
      token: owner.api.token,
      householdId: owner.householdId,
      clientId: ulid(),
      cursor: null,
    })
    await socket.next('welcome')
    // Past the hello deadline: a joined session stays.
    await new Promise((resolve) => setTimeout(resolve, 400))
    const mutations = Array.from({ length: 40 }, (_, i) => ({
      id: i + 1,
      name: 'tags.create',
      args: { id: ulid(), name: `Tag ${i} ${'x'.repeat(40)}` },
    }))
    socket.send({ type: 'push', mutations })
    const result = await socket.next('pushResult')
    expect(result.lmid).toBe(40)
    socket.send({ type: 'ping', padding: 'x'.repeat(70 * 1024) })
    expect((await socket.closed).code).toBe(1009)
  })

  it('refuses more sessions per key than the cap, with a code the device retries on', async () => {
    const owner = await server.newOwner()
    const hello = async () => {
      const socket = await rawSocket(server.url)
      socket.send({
        type: 'hello',
        token: owner.api.token,
        householdId: owner.householdId,
        clientId: ulid(),
        cursor: 0,
      })
      return socket
    }
    const a = await hello()
    const b = await hello()
    await a.next('welcome')
    await b.next('welcome')
    const c = await hello()
    expect(await c.next('error')).toMatchObject({ code: 'TOO_MANY_SESSIONS', fatal: true })
    expect(await c.closed).toEqual({ code: 4429, reason: 'TOO_MANY_SESSIONS' })
    a.close()
    await a.closed
    const d = await hello()
    expect(await d.next('welcome')).toMatchObject({ type: 'welcome' })
    b.close()
    d.close()
    await Promise.all([b.closed, d.closed])
  })

  it('refuses an upgrade once the joined sessions of an address reach its cap, with 429 and Retry-After', async () => {
    const joined: Awaited<ReturnType<typeof joinedSocket>>['socket'][] = []
    try {
      // Three members, two sessions each (the cap per key): six, the cap per address.
      for (let i = 0; i < 3; i++) {
        const member = await server.newOwner()
        for (let j = 0; j < 2; j++) joined.push((await joinedSocket(server.url, member)).socket)
      }
      expect(await upgrade(server.url)).toEqual({ status: 429, retryAfter: '5' })
      joined.pop()!.close()
      await new Promise((resolve) => setTimeout(resolve, 100))
      const answer = await upgrade(server.url)
      expect('ws' in answer).toBe(true)
      if ('ws' in answer) answer.ws.terminate()
    } finally {
      for (const socket of joined) socket.close()
      await Promise.all(joined.map((socket) => socket.closed))
    }
  })

  it('closes the oldest socket yet to say hello when its address opens more than their budget', async () => {
    // One after another, so the server sees them in this order.
    const sockets: RawSocket[] = []
    for (let i = 0; i < 5; i++) sockets.push(await rawSocket(server.url))
    const newer = sockets.slice(3)
    expect(await sockets[0]!.closed).toEqual({ code: 4408, reason: 'HELLO_TIMEOUT' })
    expect(await sockets[1]!.closed).toEqual({ code: 4408, reason: 'HELLO_TIMEOUT' })
    for (const socket of [sockets[2]!, ...newer]) {
      socket.send({ type: 'ping' })
      expect(await socket.next('pong')).toMatchObject({ type: 'pong' })
      socket.close()
    }
  })

  it('binds at most the cap of device ids per member and household, and a known one always', async () => {
    const owner = await server.newOwner()
    const ids = [ulid(), ulid(), ulid(), ulid()]
    const hello = async (clientId: string) => {
      const socket = await rawSocket(server.url)
      socket.send({
        type: 'hello',
        token: owner.api.token,
        householdId: owner.householdId,
        clientId,
        cursor: 0,
      })
      const answer = await Promise.race([socket.next('welcome'), socket.next('error')])
      socket.close()
      await socket.closed
      return answer
    }
    for (const id of ids) expect(await hello(id)).toMatchObject({ type: 'welcome' })
    expect(await hello(ulid())).toMatchObject({ type: 'error', code: 'TOO_MANY_DEVICES' })
    expect(await hello(ids[1]!)).toMatchObject({ type: 'welcome' })
  })

  it('reads a snapshot over HTTP without binding the device id, and tells nothing of ids bound elsewhere', async () => {
    const owner = await server.newOwner()
    const stranger = await server.newOwner()
    const unbound = ulid()
    const read = await owner.api.get(`/sync/snapshot?householdId=${owner.householdId}&clientId=${unbound}`)
    expect(read.status).toBe(200)
    expect(read.body.lmid).toBe(0)
    const bound = await server.store.db
      .selectFrom('sync_clients' as never)
      .select('client_id' as never)
      .where('client_id' as never, '=', unbound as never)
      .execute()
    expect(bound).toEqual([])
    // A device id the stranger bound in their household reads exactly as an unknown one.
    const socket = await rawSocket(server.url)
    const theirs = ulid()
    socket.send({
      type: 'hello',
      token: stranger.api.token,
      householdId: stranger.householdId,
      clientId: theirs,
      cursor: 0,
    })
    await socket.next('welcome')
    socket.close()
    const probe = await owner.api.get(`/sync/snapshot?householdId=${owner.householdId}&clientId=${theirs}`)
    expect(probe.status).toBe(200)
    expect(probe.body.lmid).toBe(read.body.lmid)
  })
})
