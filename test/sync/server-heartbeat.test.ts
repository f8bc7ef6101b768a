import { DEFAULT_SYNC_SOCKET_LIMITS } from '@hearth/server'
import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { joinedSocket } from './socket.ts'

// A heartbeat of 400 ms, beaten in four slices of 100 ms.
const HEARTBEAT_MS = 400
const server = useTestServer({ syncLimits: { ...DEFAULT_SYNC_SOCKET_LIMITS, heartbeatMs: HEARTBEAT_MS } })

describe('the server heartbeat', () => {
  it('pings every joined socket each heartbeat and drops one that stopped answering', async () => {
    const owner = await server.newOwner()
    const answering = await joinedSocket(server.url, owner)
    const silent = await joinedSocket(server.url, owner, { autoPong: false })
    // The silent device is dropped once a ping went unanswered for a whole heartbeat.
    const dropped = await silent.socket.closed
    expect(dropped.code).toBe(1006)
    expect(silent.socket.pings()).toBeGreaterThanOrEqual(1)
    // The answering one, in whatever slice it fell, has been pinged again and again, and stays.
    await new Promise((resolve) => setTimeout(resolve, 3 * HEARTBEAT_MS))
    expect(answering.socket.pings()).toBeGreaterThanOrEqual(3)
    let open = true
    void answering.socket.closed.then(() => {
      open = false
    })
    await new Promise((resolve) => setImmediate(resolve))
    expect(open).toBe(true)
    answering.socket.close()
  })
})
