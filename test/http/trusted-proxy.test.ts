import { DEFAULT_RATE_LIMITS } from '@hearth/server'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { apiClient, useTestServer } from '../src/index.ts'
import { rawSocket } from '../sync/socket.ts'

// Three failures per address, and prefixes that never block: what these tests count is addresses.
const rateLimits = { ...DEFAULT_RATE_LIMITS, authFailuresPerAddress: 3, authFailuresPerPrefix: 1_000_000 }
const direct = useTestServer({ rateLimits })
const proxied = useTestServer({ rateLimits, trustedProxies: ['127.0.0.1', '::1'] })

const wrongKey = () => `hth_${ulid()}${ulid()}`

/** A wrong key sent to `url` with `headers`; answers the status. */
async function wrong(url: string, headers: Record<string, string>): Promise<number> {
  return (await apiClient(url, wrongKey()).request('GET', '/users/me', undefined, headers)).status
}

/** A hello with a wrong key over `/sync`, with `headers` on the upgrade; answers the error's code. */
async function wrongHello(url: string, headers: Record<string, string>): Promise<string> {
  const socket = await rawSocket(url, headers)
  socket.send({ type: 'hello', token: wrongKey(), householdId: 'current', clientId: ulid(), cursor: 0 })
  const error = await socket.next('error')
  socket.close()
  return error.code
}

describe('without trusted proxies', () => {
  it('ignores X-Forwarded-For and Forwarded: a client cannot spread its failures over made-up addresses', async () => {
    const statuses = []
    for (let i = 1; i <= 3; i++)
      statuses.push(await wrong(direct.url, { 'x-forwarded-for': `203.0.113.${i}` }))
    expect(statuses).toEqual([401, 401, 401])
    expect(await wrong(direct.url, { 'x-forwarded-for': '203.0.113.4' })).toBe(429)
    expect(await wrong(direct.url, { forwarded: 'for=198.51.100.9' })).toBe(429)
    expect(await wrongHello(direct.url, { 'x-forwarded-for': '198.51.100.10' })).toBe('RATE_LIMITED')
  })
})

describe('behind a trusted proxy', () => {
  it('counts failures per forwarded client address, over REST and on the sync socket', async () => {
    const first = { 'x-forwarded-for': '203.0.113.1' }
    expect([await wrong(proxied.url, first), await wrongHello(proxied.url, first)]).toEqual([
      401,
      'UNAUTHENTICATED',
    ])
    expect(await wrong(proxied.url, first)).toBe(401)
    expect(await wrong(proxied.url, first)).toBe(429)
    expect(await wrongHello(proxied.url, first)).toBe('RATE_LIMITED')
    // Another client behind the same proxy is judged on its own.
    expect(await wrong(proxied.url, { 'x-forwarded-for': '203.0.113.2' })).toBe(401)
    expect(await wrongHello(proxied.url, { 'x-forwarded-for': '203.0.113.3' })).toBe('UNAUTHENTICATED')
  })

  it('reads the hop the proxy saw: an address the client prepended does not help it', async () => {
    const spoofed = { 'x-forwarded-for': `198.51.100.${Math.floor(Math.random() * 250)}, 203.0.113.1` }
    expect(await wrong(proxied.url, spoofed)).toBe(429)
    expect(await wrong(proxied.url, { forwarded: 'for=203.0.113.1;proto=https' })).toBe(429)
    expect(await wrong(proxied.url, { forwarded: 'for="[2001:db8::1]:4711"' })).toBe(401)
  })

  it('still lets a valid key in from a forwarded address that is past its limit', async () => {
    const owner = await proxied.newOwner()
    const res = await owner.api.request('GET', '/users/me', undefined, { 'x-forwarded-for': '203.0.113.1' })
    expect(res.status).toBe(200)
  })
})
