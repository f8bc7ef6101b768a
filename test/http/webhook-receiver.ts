import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { afterAll } from 'vitest'

/** One delivery as a receiver saw it. */
export interface Received {
  id: string
  timestamp: string
  signature: string
  body: string
  payload: { type: string; timestamp: string; data: any }
}

/** How the receiver answers the nth request (0-based); `hang` never answers. */
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang'

/** A real HTTP receiver on loopback that records every delivery and answers as told. */
export interface Receiver {
  url: string
  received: Received[]
  /** Verifies every received delivery with the standardwebhooks verifier and each of `secrets`. */
  verifyAll(...secrets: string[]): void
  /** Resolves once `n` deliveries have arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>
}

/** Starts a receiver; it is closed after the file's tests. */
export async function startReceiver(
  answer: (n: number) => Answer = () => ({ status: 200 }),
): Promise<Receiver> {
  const received: Received[] = []
  const hanging: ServerResponse[] = []
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const n = received.length
      received.push({
        id: String(req.headers['webhook-id']),
        timestamp: String(req.headers['webhook-timestamp']),
        signature: String(req.headers['webhook-signature']),
        body,
        payload: JSON.parse(body),
      })
      const a = answer(n)
      if (a === 'hang') {
        hanging.push(res)
        return
      }
      res.writeHead(a.status, a.headers)
      res.end(a.body ?? 'ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  afterAll(async () => {
    for (const res of hanging) res.destroy()
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  return {
    url,
    received,
    verifyAll(...secrets) {
      for (const r of received) {
        const headers = {
          'webhook-id': r.id,
          'webhook-timestamp': r.timestamp,
          'webhook-signature': r.signature,
        }
        for (const secret of secrets) new Webhook(secret).verify(r.body, headers)
      }
    },
    async waitFor(n, timeoutMs = 8000) {
      const until = Date.now() + timeoutMs
      while (received.length < n) {
        if (Date.now() > until) throw new Error(`Only ${received.length} of ${n} deliveries arrived.`)
        await new Promise((r) => setTimeout(r, 20))
      }
      return received
    },
  }
}

/** Waits until `check` holds, polling. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs = 8000,
): Promise<T> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > until) throw new Error('The condition never held.')
    await new Promise((r) => setTimeout(r, 25))
  }
}
