import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net'
import type { ReconnectingEvent, SyncStatus } from '@hearth/client'
import type { RunningServer } from '@hearth/server'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { newOwner, startTestServer } from '../src/index.ts'
import { closeDevices, eventually, newDevice } from './devices.ts'

let server: RunningServer

beforeAll(async () => {
  server = await startTestServer()
})
afterEach(async () => {
  await closeDevices()
  await Promise.all(proxies.splice(0).map((p) => p.cut()))
})
afterAll(async () => {
  await server?.close()
})

/**
 * A TCP relay on loopback in front of the real server: `cut` drops every connection and stops
 * listening (a reconnect is refused at once), `restore` listens again on the same port.
 */
interface Relay {
  url: string
  cut(): Promise<void>
  restore(): Promise<void>
}
const proxies: Relay[] = []

async function relayTo(target: string): Promise<Relay> {
  const { hostname, port: targetPort } = new URL(target)
  const sockets = new Set<Socket>()
  let listener: Server | null = null
  let port = 0
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = tcpConnect(Number(targetPort), hostname)
        for (const socket of [client, upstream]) {
          sockets.add(socket)
          socket.on('close', () => sockets.delete(socket))
          socket.on('error', () => {})
        }
        client.pipe(upstream).pipe(client)
        client.on('close', () => upstream.destroy())
        upstream.on('close', () => client.destroy())
      })
      s.once('error', reject)
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as { port: number }).port
        listener = s
        resolve()
      })
    })
  await listen()
  const relay: Relay = {
    url: `http://127.0.0.1:${port}`,
    async cut() {
      const s = listener
      listener = null
      for (const socket of sockets) socket.destroy()
      if (s) await new Promise((resolve) => s.close(resolve))
    },
    restore: listen,
  }
  proxies.push(relay)
  return relay
}

describe('the reconnect countdown', () => {
  it('says when the next attempt starts, without a status event per attempt, and clears once back', async () => {
    const owner = await newOwner(server)
    const relay = await relayTo(server.url)
    const device = await newDevice(server, owner, {
      serverUrl: relay.url,
      reconnectMinMs: 200,
      reconnectMaxMs: 800,
    })
    await device.sync.whenSynced()
    expect(device.sync.status).toMatchObject({ state: 'online', nextRetryAt: null, retryAttempt: 0 })

    const statuses: SyncStatus[] = []
    const retries: { event: ReconnectingEvent; seenAt: number }[] = []
    device.on('status', (s) => statuses.push(s))
    device.on('reconnecting', (event) => retries.push({ event, seenAt: Date.now() }))
    await relay.cut()

    // Several refused attempts in a row, each announced with its own countdown.
    await eventually(() => expect(retries.length).toBeGreaterThanOrEqual(4))
    retries.forEach(({ event, seenAt }, i) => {
      expect(event.attempt).toBe(i + 1)
      expect(event.at).toBeInstanceOf(Date)
      // Doubling from 200 ms up to 800 ms, with jitter of up to half.
      expect(event.delayMs).toBeGreaterThanOrEqual(Math.min(800, 200 * 2 ** i) / 2)
      expect(event.delayMs).toBeLessThanOrEqual(Math.min(800, 200 * 2 ** i))
      expect(event.at.getTime() - seenAt).toBeGreaterThan(event.delayMs - 50)
      expect(event.at.getTime() - seenAt).toBeLessThanOrEqual(event.delayMs)
    })
    // Going offline was announced once, already with the first countdown in it.
    const offline = statuses.filter((s) => s.state === 'offline')
    expect(offline).toHaveLength(1)
    expect(offline[0]!.nextRetryAt).toEqual(retries[0]!.event.at)
    expect(offline[0]!.retryAttempt).toBe(1)
    // The status read at any time shows the attempt under way or the next one's time.
    const now = device.sync.status
    expect(now.state).toBe('offline')
    expect(now.retryAttempt).toBeGreaterThanOrEqual(retries.length)
    if (now.nextRetryAt) expect(now.nextRetryAt.getTime()).toBeLessThanOrEqual(Date.now() + 800)

    await relay.restore()
    await device.sync.whenSynced()
    expect(device.sync.status).toMatchObject({ state: 'online', nextRetryAt: null, retryAttempt: 0 })
    expect(statuses.filter((s) => s.state === 'offline')).toHaveLength(1)
    expect(statuses.at(-1)).toMatchObject({ state: 'online', nextRetryAt: null, retryAttempt: 0 })
  }, 90_000)

  it('retries at once on connect() instead of waiting out a long countdown', async () => {
    const owner = await newOwner(server)
    const relay = await relayTo(server.url)
    const device = await newDevice(server, owner, {
      serverUrl: relay.url,
      reconnectMinMs: 120_000,
      reconnectMaxMs: 120_000,
    })
    await device.sync.whenSynced()
    const retries: ReconnectingEvent[] = []
    device.on('reconnecting', (event) => retries.push(event))
    await relay.cut()
    await eventually(() => expect(retries).toHaveLength(1))
    // The first attempt is a minute or two away.
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(60_000)
    expect(device.sync.status.nextRetryAt).toEqual(retries[0]!.at)

    await relay.restore()
    device.sync.connect()
    expect(device.sync.status.nextRetryAt).toBeNull()
    await device.sync.whenSynced({ timeoutMs: 30_000 })
    expect(device.sync.status).toMatchObject({ state: 'online', nextRetryAt: null, retryAttempt: 0 })
    // The abandoned countdown never fires a second connection.
    expect(retries).toHaveLength(1)
  })

  it('has no countdown after disconnect() or once the server ended the session for good', async () => {
    const owner = await newOwner(server)
    const relay = await relayTo(server.url)
    const device = await newDevice(server, owner, { serverUrl: relay.url })
    await device.sync.whenSynced()
    await device.sync.disconnect()
    expect(device.sync.status).toMatchObject({ state: 'offline', nextRetryAt: null, retryAttempt: 0 })

    device.sync.connect()
    await device.sync.whenSynced()
    const retries: ReconnectingEvent[] = []
    device.on('reconnecting', (event) => retries.push(event))
    const key = await server.store.db
      .selectFrom('api_keys')
      .select('id')
      .where('user_id', '=', owner.userId)
      .executeTakeFirstOrThrow()
    expect((await owner.api.delete(`/users/me/api-keys/${key.id}`)).status).toBe(204)
    await eventually(() => expect(device.sync.status.error).not.toBeNull())
    expect(device.sync.status).toMatchObject({ state: 'offline', nextRetryAt: null, retryAttempt: 0 })
    expect(retries).toEqual([])
  })
})
