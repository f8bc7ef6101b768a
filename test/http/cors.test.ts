import { describe, expect, it } from 'vitest'
import { apiClient, useTestServer } from '../src/index.ts'

const open = useTestServer()
const restricted = useTestServer({ corsOrigins: ['https://app.example.com'] })

const APP = 'https://app.example.com'

describe('cross-origin calls (CORS)', () => {
  it('answers a preflight before authentication, allowing the headers a write sends', async () => {
    const res = await apiClient(open.url, null).request('OPTIONS', '/households/current/tags', undefined, {
      origin: APP,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type, idempotency-key',
    })
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(res.headers.get('access-control-allow-methods')).toContain('POST')
    const allowed = res.headers.get('access-control-allow-headers')!.toLowerCase().split(',')
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'idempotency-key']))
    expect(res.headers.get('access-control-max-age')).toBe('86400')
  })

  it('lets a page read an answer, a refusal too, and the headers it needs', async () => {
    const owner = await open.newOwner()
    const ok = await owner.api.request('GET', '/households/current', undefined, { origin: APP })
    expect(ok.status).toBe(200)
    expect(ok.headers.get('access-control-allow-origin')).toBe('*')
    expect(ok.headers.get('access-control-expose-headers')).toContain('X-Request-Id')

    const refused = await apiClient(open.url, 'hth_not-a-real-key').request(
      'GET',
      '/households/current',
      undefined,
      { origin: APP },
    )
    expect(refused.status).toBe(401)
    expect(refused.headers.get('access-control-allow-origin')).toBe('*')
    expect(refused.body.code).toBe('UNAUTHENTICATED')

    const created = await owner.api.post(
      '/households/current/tags',
      { name: 'From a page' },
      { origin: APP, 'idempotency-key': 'cors-1' },
    )
    expect(created.status).toBe(201)
    expect(created.headers.get('access-control-allow-origin')).toBe('*')
  })

  it('allows only the listed origins when HEARTH_CORS_ORIGINS names them', async () => {
    const owner = await restricted.newOwner()
    const listed = await owner.api.request('GET', '/households/current', undefined, { origin: APP })
    expect(listed.headers.get('access-control-allow-origin')).toBe(APP)
    expect(listed.headers.get('vary')).toContain('Origin')

    const other = await apiClient(restricted.url, null).request(
      'OPTIONS',
      '/households/current/tags',
      undefined,
      { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    )
    expect(other.headers.get('access-control-allow-origin')).toBeNull()
    const read = await owner.api.request('GET', '/households/current', undefined, {
      origin: 'https://evil.example',
    })
    expect(read.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('leaves a request without an Origin (a program) without CORS headers, its answer whole', async () => {
    const owner = await open.newOwner()
    const created = await owner.api.post('/households/current/tags', { name: 'From a program' })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ name: 'From a program' })
    expect(created.headers.get('content-type')).toContain('application/json')
    expect(created.headers.get('x-request-id')).toBeTruthy()
    expect(created.headers.get('access-control-allow-origin')).toBeNull()
    // Where only listed origins may call, a cache still keeps answers apart by Origin.
    const member = await restricted.newOwner()
    const read = await member.api.request('GET', '/households/current')
    expect(read.status).toBe(200)
    expect(read.headers.get('access-control-allow-origin')).toBeNull()
    expect(read.headers.get('vary')).toContain('Origin')
  })
})
