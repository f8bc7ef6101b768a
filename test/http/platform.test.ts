import { describe, expect, it } from 'vitest'
import { apiClient, useTestServer } from '../src/index.ts'

const server = useTestServer()

function expectProblem(res: { status: number; headers: Headers; body: any }, status: number, code: string) {
  expect(res.status).toBe(status)
  expect(res.headers.get('content-type')).toContain('application/problem+json')
  expect(res.body).toMatchObject({ status, code, type: expect.any(String), title: expect.any(String) })
}

describe('authentication', () => {
  it('answers 401 problem+json without a token', async () => {
    const res = await apiClient(server.url, null).get('/households/current')
    expectProblem(res, 401, 'UNAUTHENTICATED')
    expect(res.headers.get('www-authenticate')).toContain('Bearer')
  })

  it('answers 401 for an unknown token', async () => {
    expectProblem(await apiClient(server.url, 'hth_not-a-real-key').get('/users/me'), 401, 'UNAUTHENTICATED')
  })

  it('answers 401 once a key is revoked over HTTP', async () => {
    const owner = await server.newOwner()
    const created = await owner.api.post('/users/me/api-keys', { name: 'temp', scopes: ['read:profile'] })
    const temp = apiClient(server.url, created.body.key)
    expect((await temp.get('/users/me')).status).toBe(200)
    expect((await owner.api.delete(`/users/me/api-keys/${created.body.id}`)).status).toBe(204)
    expectProblem(await temp.get('/users/me'), 401, 'UNAUTHENTICATED')
  })
})

describe('scopes and membership', () => {
  it('answers 403 INSUFFICIENT_SCOPE naming the scope when the key lacks it', async () => {
    const owner = await server.newOwner(['read:profile'])
    const res = await owner.api.get('/households/current')
    expectProblem(res, 403, 'INSUFFICIENT_SCOPE')
    expect(res.body.requiredScope).toBe('read:households')
    expect(res.body.detail).toContain('read:households')
  })

  it('checks the scope before reading the body', async () => {
    const owner = await server.newOwner(['read:households'])
    expectProblem(await owner.api.patch('/households/current', '{broken'), 403, 'INSUFFICIENT_SCOPE')
  })

  it("answers 404 for another household's id, the same as for one that does not exist", async () => {
    const a = await server.newOwner()
    const b = await server.newOwner()
    const foreign = await a.api.get(`/households/${b.householdId}`)
    expectProblem(foreign, 404, 'NOT_FOUND')
    expectProblem(await a.api.get(`/households/${b.householdId}/members`), 404, 'NOT_FOUND')
    expectProblem(await a.api.get('/households/01ARZ3NDEKTSV4RRFFQ69G5FAV'), 404, 'NOT_FOUND')
    expect((await a.api.get(`/households/${a.householdId}`)).body.id).toBe(a.householdId)
  })

  it('resolves current to the caller’s default household', async () => {
    const owner = await server.newOwner()
    const res = await owner.api.get('/households/current')
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ id: owner.householdId, baseCurrency: 'USD', timeZone: 'UTC' })
  })

  it('lets an owner patch the household and refuses a member with 403', async () => {
    const owner = await server.newOwner()
    const member = await server.newMember(owner, 'member')
    expectProblem(await member.api.patch('/households/current', { name: 'Taken over' }), 403, 'OWNER_ONLY')
    const res = await owner.api.patch('/households/current', { name: 'Renamed', baseCurrency: 'EUR' })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ name: 'Renamed', baseCurrency: 'EUR' })
    expect((await member.api.get('/households/current')).body.name).toBe('Renamed')
  })

  it('lists members with their roles', async () => {
    const owner = await server.newOwner()
    const member = await server.newMember(owner, 'member')
    const res = await owner.api.get('/households/current/members')
    expect(res.status).toBe(200)
    expect(res.body.items).toEqual([
      expect.objectContaining({ userId: owner.userId, role: 'owner' }),
      expect.objectContaining({ userId: member.userId, role: 'member' }),
    ])
  })
})

describe('errors', () => {
  it('answers malformed JSON with 400 MALFORMED_JSON', async () => {
    const owner = await server.newOwner()
    expectProblem(await owner.api.patch('/households/current', '{"name": '), 400, 'MALFORMED_JSON')
  })

  it('refuses unknown fields and lists each one', async () => {
    const owner = await server.newOwner()
    const res = await owner.api.patch('/households/current', { name: 'X', colour: 'red', extra: 1 })
    expectProblem(res, 400, 'VALIDATION_FAILED')
    expect(res.body.errors.map((e: any) => e.path).sort()).toEqual(['colour', 'extra'])
  })

  it('lists invalid field values with their paths', async () => {
    const owner = await server.newOwner()
    const res = await owner.api.patch('/households/current', {
      baseCurrency: 'euro',
      timeZone: 'Mars/Olympus',
    })
    expectProblem(res, 400, 'VALIDATION_FAILED')
    expect(res.body.errors.map((e: any) => e.path).sort()).toEqual(['baseCurrency', 'timeZone'])
  })

  it('answers an unknown route with 404 ROUTE_NOT_FOUND', async () => {
    const owner = await server.newOwner()
    expectProblem(await owner.api.get('/no/such/route'), 404, 'ROUTE_NOT_FOUND')
  })

  it('answers a method the path does not take with 405 and Allow', async () => {
    const owner = await server.newOwner()
    const res = await owner.api.delete('/households/current')
    expectProblem(res, 405, 'METHOD_NOT_ALLOWED')
    expect(res.headers.get('allow')).toBe('GET, PATCH, HEAD')
    const tags = await owner.api.put(`/households/${owner.householdId}/tags`, {})
    expectProblem(tags, 405, 'METHOD_NOT_ALLOWED')
    expect(tags.headers.get('allow')).toBe('GET, POST, HEAD')
    const health = await owner.api.post('/healthz', {})
    expect(health.headers.get('allow')).toBe('GET, HEAD')
  })

  it('says which amounts are accepted, for a decimal and for one out of range', async () => {
    const owner = await server.newOwner()
    const H = `/households/${owner.householdId}`
    const account = await owner.api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' })
    const post = (amountCents: unknown) =>
      owner.api.post(`${H}/transactions`, { accountId: account.body.id, date: '2024-03-01', amountCents })
    const decimal = await post('12.50')
    expectProblem(decimal, 400, 'VALIDATION_FAILED')
    expect(decimal.body.errors).toEqual([
      expect.objectContaining({
        path: 'amountCents',
        message: expect.stringContaining('not a decimal like "12.50"'),
      }),
    ])
    expect(JSON.stringify(decimal.body)).not.toContain('\\d')
    const huge = await post(9_000_000_000_001)
    expect(huge.body.errors[0]).toMatchObject({
      path: 'amountCents',
      message: 'Must be between -9000000000000 and 9000000000000 cents.',
    })
  })

  it('answers a body that is not JSON with 415', async () => {
    const owner = await server.newOwner()
    const res = await owner.api.request('PATCH', '/households/current', 'name=x', {
      'content-type': 'text/plain',
    })
    expectProblem(res, 415, 'UNSUPPORTED_MEDIA_TYPE')
  })

  it('answers an oversized body with 413', async () => {
    const owner = await server.newOwner()
    const res = await owner.api.patch('/users/me/preferences', { blob: 'x'.repeat(1024 * 1024 + 10) })
    expectProblem(res, 413, 'PAYLOAD_TOO_LARGE')
  })

  it('tags every response with a request id', async () => {
    const res = await apiClient(server.url, null).get('/healthz')
    expect(res.headers.get('x-request-id')).toMatch(/.+/)
  })
})

describe('Idempotency-Key', () => {
  it('replays the stored response for a retry with the same body', async () => {
    const owner = await server.newOwner()
    const headers = { 'idempotency-key': `create-key-${owner.userId}` }
    const body = { name: 'ci key', scopes: ['read:profile'] }
    const first = await owner.api.post('/users/me/api-keys', body, headers)
    expect(first.status).toBe(201)
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    const second = await owner.api.post('/users/me/api-keys', body, headers)
    expect(second.status).toBe(201)
    expect(second.headers.get('idempotent-replayed')).toBe('true')
    expect(second.body).toEqual(first.body)
    // The retry did not create a second key.
    const keys = await owner.api.get('/users/me/api-keys')
    expect(keys.body.items.filter((k: any) => k.name === 'ci key')).toHaveLength(1)
  })

  it('refuses the same key with another body with 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const owner = await server.newOwner()
    const headers = { 'idempotency-key': 'rename-1' }
    expect((await owner.api.patch('/households/current', { name: 'One' }, headers)).status).toBe(200)
    const res = await owner.api.patch('/households/current', { name: 'Two' }, headers)
    expectProblem(res, 422, 'IDEMPOTENCY_KEY_REUSED')
    expect((await owner.api.get('/households/current')).body.name).toBe('One')
  })

  it('runs two concurrent requests with one key once: the second waits and replays the first', async () => {
    const owner = await server.newOwner()
    const headers = { 'idempotency-key': `race-${owner.userId}` }
    const body = { name: 'Raced', scopes: ['read:tags'] }
    const [a, b] = await Promise.all([
      owner.api.post('/users/me/api-keys', body, headers),
      owner.api.post('/users/me/api-keys', body, headers),
    ])
    expect([a.status, b.status]).toEqual([201, 201])
    expect(a.body).toEqual(b.body)
    expect([a, b].filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(1)
    const keys = (await owner.api.get('/users/me/api-keys')).body.items
    expect(keys.filter((k: { name: string }) => k.name === 'Raced')).toHaveLength(1)
  })

  it('keeps keys per caller: another user may use the same key value', async () => {
    const a = await server.newOwner()
    const b = await server.newOwner()
    const headers = { 'idempotency-key': 'shared-value' }
    expect((await a.api.patch('/households/current', { name: 'A' }, headers)).status).toBe(200)
    const res = await b.api.patch('/households/current', { name: 'B' }, headers)
    expect(res.status).toBe(200)
    expect(res.headers.get('idempotent-replayed')).toBeNull()
    expect(res.body.name).toBe('B')
  })

  it('replays a stored client error rather than running the request again', async () => {
    const owner = await server.newOwner()
    const headers = { 'idempotency-key': 'bad-currency' }
    const first = await owner.api.patch('/households/current', { baseCurrency: 'nope' }, headers)
    expect(first.status).toBe(400)
    const again = await owner.api.patch('/households/current', { baseCurrency: 'nope' }, headers)
    expect(again.status).toBe(400)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
  })
})
