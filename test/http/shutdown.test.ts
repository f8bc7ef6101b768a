import { request } from 'node:http'
import { describe, expect, it } from 'vitest'
import { apiClient, useTestServer } from '../src/index.ts'

const server = useTestServer()

describe('graceful shutdown', () => {
  it('finishes a request in flight, then refuses new connections', async () => {
    const owner = await server.newOwner()
    const body = JSON.stringify({ name: 'Renamed during shutdown' })
    const url = new URL(`${server.url}/households/current`)
    let finish!: () => void
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'PATCH',
          headers: {
            authorization: `Bearer ${owner.api.token}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          let text = ''
          res.on('data', (d) => (text += d))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
        },
      )
      req.on('error', reject)
      // Half the body now, the rest once shutdown has begun.
      req.write(body.slice(0, 10))
      finish = () => req.end(body.slice(10))
    })
    await new Promise((r) => setTimeout(r, 100))
    const closing = server.close()
    await new Promise((r) => setTimeout(r, 100))
    finish()
    const res = await response
    expect(res.status).toBe(200)
    expect(JSON.parse(res.text).name).toBe('Renamed during shutdown')
    await closing
    await expect(apiClient(server.url, owner.api.token).get('/healthz')).rejects.toThrow()
  })
})
