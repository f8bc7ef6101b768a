import { Agent, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { limitBody } from './body-limit.ts'

const LIMIT = 1024 * 1024
let server: ReturnType<typeof serve>
let port: number
const agent = new Agent({ keepAlive: true, maxSockets: 1 })

beforeAll(async () => {
  const app = new Hono()
  app.use(limitBody(LIMIT, (c) => c.json({ code: 'PAYLOAD_TOO_LARGE' }, 413, { connection: 'close' })))
  // Refuses before reading the body, as authentication, membership and scope checks do.
  app.post('/refuse', (c) => c.json({ code: 'UNAUTHENTICATED' }, 401))
  app.post('/echo', async (c) => c.json({ bytes: (await c.req.text()).length }))
  // Peeks at the body as a web stream and answers without reading the rest, as the OpenAPI
  // validator does to refuse a body sent with no Content-Type.
  app.post('/peek', async (c) => {
    const reader = c.req.raw.clone().body!.getReader()
    await reader.read()
    void reader.cancel()
    return c.json({ code: 'UNSUPPORTED_MEDIA_TYPE' }, 415)
  })
  app.get('/ping', (c) => c.json({ ok: true }))
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve())
  })
  port = (server.address() as AddressInfo).port
})

afterAll(async () => {
  agent.destroy()
  await new Promise((resolve) => server.close(resolve))
})

/** One request on the shared keep-alive agent; `chunked` sends the body without a length. */
function send(method: string, path: string, body?: string, chunked = false) {
  return new Promise<{ status: number; body: string; connection?: string }>((resolve, reject) => {
    const headers: Record<string, string | number> = { 'content-type': 'application/json' }
    if (body !== undefined && !chunked) headers['content-length'] = Buffer.byteLength(body)
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      let text = ''
      res.on('data', (chunk) => {
        text += chunk
      })
      res.on('end', () =>
        resolve({ status: res.statusCode!, body: text, connection: res.headers.connection }),
      )
    })
    req.on('error', reject)
    if (body !== undefined && chunked) {
      // Two writes, so node sends Transfer-Encoding: chunked.
      req.write(body.slice(0, 10))
      req.end(body.slice(10))
    } else req.end(body)
  })
}

describe('limitBody', () => {
  it('keeps the connection usable after a refusal that never read a large body', async () => {
    const body = JSON.stringify({ a: 'x'.repeat(300_000) })
    for (let i = 0; i < 3; i++) {
      // Node drains the untouched body, so the connection stays open for the next request.
      expect(await send('POST', '/refuse', body)).toMatchObject({ status: 401, connection: 'keep-alive' })
      // Before, this request on the same socket failed with "socket hang up".
      expect((await send('GET', '/ping')).status).toBe(200)
    }
  })

  it('closes the connection after an answer that left a body it had opened unread', async () => {
    const body = JSON.stringify({ a: 'x'.repeat(300_000) })
    for (let i = 0; i < 3; i++) {
      const res = await send('POST', '/peek', body)
      expect(res).toMatchObject({ status: 415, connection: 'close' })
      expect((await send('GET', '/ping')).status).toBe(200)
    }
  })

  it('refuses a body whose Content-Length is over the limit, and passes one under it', async () => {
    expect((await send('POST', '/echo', 'x'.repeat(LIMIT + 1))).status).toBe(413)
    expect(await send('POST', '/echo', 'x'.repeat(LIMIT))).toMatchObject({
      status: 200,
      body: JSON.stringify({ bytes: LIMIT }),
    })
  })

  it('counts a chunked body as it arrives', async () => {
    expect((await send('POST', '/echo', 'x'.repeat(LIMIT + 1), true)).status).toBe(413)
    expect(await send('POST', '/echo', 'x'.repeat(1000), true)).toMatchObject({
      status: 200,
      body: JSON.stringify({ bytes: 1000 }),
    })
  })
})
