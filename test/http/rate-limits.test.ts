import { SCOPES } from '@hearth/engine'
import { DEFAULT_RATE_LIMITS } from '@hearth/server'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { apiClient, useTestServer } from '../src/index.ts'
import { rawSocket } from '../sync/socket.ts'

// One server, and every request from 127.0.0.1: the tests run in order, each on what the last left.
const server = useTestServer({
  rateLimits: { ...DEFAULT_RATE_LIMITS, authFailuresPerAddress: 6, authFailuresPerPrefix: 3, restPerKey: 20 },
})

const badKey = (prefix: string) => `${prefix}${ulid()}${ulid()}`

describe('rate limits', () => {
  it('never counts valid requests in flight as failures, however many run at once', async () => {
    const owner = await server.newOwner()
    const answers = await Promise.all(Array.from({ length: 15 }, () => owner.api.get('/users/me')))
    expect(answers.map((a) => a.status)).toEqual(Array(15).fill(200))
  })

  it('limits REST requests per key, with RateLimit headers and a 429 with Retry-After', async () => {
    const owner = await server.newOwner()
    const first = await owner.api.get('/users/me')
    expect(first.status).toBe(200)
    expect(first.headers.get('ratelimit-limit')).toBe('20')
    expect(first.headers.get('ratelimit-remaining')).toBe('19')
    for (let i = 0; i < 19; i++) expect((await owner.api.get('/users/me')).status).toBe(200)
    const refused = await owner.api.get('/users/me')
    expect(refused.status).toBe(429)
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED' })
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    // Another key of the same user has its own budget.
    const other = apiClient(server.url, await server.issueKey(owner.userId, [...SCOPES]))
    expect((await other.get('/users/me')).status).toBe(200)
  })

  it('answers the wrong keys of a prefix that failed too often with 429, and still judges other prefixes', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await apiClient(server.url, badKey('hth_AAAA')).get('/users/me')).status).toBe(401)
    }
    const refused = await apiClient(server.url, badKey('hth_AAAA')).get('/users/me')
    expect(refused.status).toBe(429)
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED' })
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(refused.headers.get('www-authenticate')).toBeNull()
    expect((await apiClient(server.url, badKey('hth_BBBB')).get('/users/me')).status).toBe(401)
  })

  it('answers the wrong keys of an address that failed too often with 429, over REST and on the sync socket', async () => {
    const owner = await server.newOwner()
    // 5 failures so far from this address (4 with hth_AAAA, 1 with hth_BBBB); one more reaches the cap.
    const socket = await rawSocket(server.url)
    socket.send({
      type: 'hello',
      token: badKey('hth_CCCC'),
      householdId: 'current',
      clientId: ulid(),
      cursor: 0,
    })
    expect(await socket.next('error')).toMatchObject({ code: 'UNAUTHENTICATED' })

    const rest = await apiClient(server.url, badKey('hth_EEEE')).get('/users/me')
    expect(rest.status).toBe(429)
    const again = await rawSocket(server.url)
    again.send({
      type: 'hello',
      token: badKey('hth_FFFF'),
      householdId: 'current',
      clientId: ulid(),
      cursor: 0,
    })
    expect(await again.next('error')).toMatchObject({ code: 'RATE_LIMITED', fatal: true })
    expect((await again.closed).code).toBe(4429)
    // The right key is checked first, so the address's block never refuses it.
    expect((await owner.api.get('/users/me')).status).toBe(200)
    const valid = await rawSocket(server.url)
    valid.send({ type: 'hello', token: owner.api.token, householdId: 'current', clientId: ulid(), cursor: 0 })
    expect(await valid.next('welcome')).toMatchObject({ type: 'welcome' })
    valid.close()
  })
})
