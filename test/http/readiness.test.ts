import { describe, expect, it } from 'vitest'
import { apiClient, useTestServer } from '../src/index.ts'

/** GET /readyz: whether this instance can write (docs/operations.md, "A cluster that fails over"). */
describe('GET /readyz', () => {
  const server = useTestServer()

  it('answers 200 without a key when the store takes writes, and refuses a query parameter', async () => {
    const api = apiClient(server.url, null)
    const ready = await api.get('/readyz')
    expect(ready.status).toBe(200)
    expect(ready.body).toEqual({ status: 'ready', store: server.store.kind })
    const bad = await api.get('/readyz?verbose=1')
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe('VALIDATION_FAILED')
  })
})
