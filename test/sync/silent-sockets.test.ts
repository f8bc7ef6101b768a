import { DEFAULT_SYNC_SOCKET_LIMITS } from '@hearth/server'
import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { useTestServer } from '../src/index.ts'
import { joinedSocket } from './socket.ts'

// The default limits, so the test is the probe's: 64 sockets per address, a 5 s hello deadline.
const server = useTestServer({ syncLimits: DEFAULT_SYNC_SOCKET_LIMITS })

/** Opens `/sync` and says nothing; resolves once open, or with the HTTP status it was refused with. */
function silentSocket(url: string): Promise<WebSocket | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/sync`)
    ws.once('open', () => resolve(ws))
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
    ws.once('error', reject)
  })
}

describe('sockets that never say hello', () => {
  it('never keep a member of their address from joining, and are held to a smaller budget of their own', async () => {
    const { maxSocketsPerAddress, maxUnjoinedSocketsPerAddress } = DEFAULT_SYNC_SOCKET_LIMITS
    expect(maxUnjoinedSocketsPerAddress).toBeLessThan(maxSocketsPerAddress)
    const owner = await server.newOwner()
    const silent: WebSocket[] = []
    try {
      for (let i = 0; i < maxSocketsPerAddress + 6; i++) {
        const answer = await silentSocket(server.url)
        expect(answer, `silent socket ${i}`).toBeInstanceOf(WebSocket)
        silent.push(answer as WebSocket)
      }
      // The newest stay open; older ones were closed to make room, as a missed deadline would.
      await new Promise((resolve) => setTimeout(resolve, 200))
      const open = silent.filter((ws) => ws.readyState === WebSocket.OPEN)
      expect(open.length).toBe(maxUnjoinedSocketsPerAddress)
      expect(open).toEqual(silent.slice(-maxUnjoinedSocketsPerAddress))
      // A member on the same address joins at once, well within the silent sockets' deadline.
      const started = Date.now()
      const { welcome, socket } = await joinedSocket(server.url, owner)
      expect(welcome).toMatchObject({ type: 'welcome' })
      expect(Date.now() - started).toBeLessThan(DEFAULT_SYNC_SOCKET_LIMITS.helloTimeoutMs)
      // Another burst of silent sockets does not close the joined session.
      for (let i = 0; i < maxUnjoinedSocketsPerAddress * 2; i++)
        silent.push((await silentSocket(server.url)) as WebSocket)
      socket.send({ type: 'ping' })
      expect(await socket.next('pong')).toMatchObject({ type: 'pong' })
      socket.close()
      await socket.closed
    } finally {
      for (const ws of silent) ws.terminate()
    }
  })
})
