import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'

const open = useTestServer()
const restricted = useTestServer({ corsOrigins: ['https://app.example.com'] })

const APP = 'https://app.example.com'

describe('cross-origin calls (CORS)', () => {
  it('answers a preflight before authentication, allowing the headers a write sends', async () => {
    const res = await fetch(`${open.url}/households/current/tags`, {
      method: 'OPTIONS',
      headers: {
        origin: APP,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, idempotency-key',
      },
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
    const ok = await fetch(`${open.url}/households/current`, {
      headers: { origin: APP, authorization: `Bearer ${owner.api.token}` },
    })
    expect(ok.status).toBe(200)
    expect(ok.headers.get('access-control-allow-origin')).toBe('*')
    expect(ok.headers.get('access-control-expose-headers')).toContain('X-Request-Id')

    const refused = await fetch(`${open.url}/households/current`, {
      headers: { origin: APP, authorization: 'Bearer hth_not-a-real-key' },
    })
    expect(refused.status).toBe(401)
    expect(refused.headers.get('access-control-allow-origin')).toBe('*')
    expect((await refused.json()).code).toBe('UNAUTHENTICATED')

    const created = await fetch(`${open.url}/households/current/tags`, {
      method: 'POST',
      headers: {
        origin: APP,
        authorization: `Bearer ${owner.api.token}`,
        'content-type': 'application/json',
        'idempotency-key': 'cors-1',
      },
      body: JSON.stringify({ name: 'From a page' }),
    })
    expect(created.status).toBe(201)
    expect(created.headers.get('access-control-allow-origin')).toBe('*')
  })

  it('allows only the listed origins when HEARTH_CORS_ORIGINS names them', async () => {
    const owner = await restricted.newOwner()
    const listed = await fetch(`${restricted.url}/households/current`, {
      headers: { origin: APP, authorization: `Bearer ${owner.api.token}` },
    })
    expect(listed.headers.get('access-control-allow-origin')).toBe(APP)
    expect(listed.headers.get('vary')).toContain('Origin')

    const other = await fetch(`${restricted.url}/households/current/tags`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    })
    expect(other.headers.get('access-control-allow-origin')).toBeNull()
    const read = await fetch(`${restricted.url}/households/current`, {
      headers: { origin: 'https://evil.example', authorization: `Bearer ${owner.api.token}` },
    })
    expect(read.headers.get('access-control-allow-origin')).toBeNull()
  })
})
