import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'

const server = useTestServer()

/** The rules every route follows alike, because every route is generated from one table. */
describe('request rules, the same on every route', () => {
  it('refuses an unknown query parameter with 400 naming it, on every list', async () => {
    const owner = await server.newOwner()
    for (const path of [
      '/households/current/payees?q=x',
      '/households/current/tags?name=x',
      '/households/current/category-groups?x=1',
      '/households/current/flags?x=1',
      '/households/current/exchange-rates?x=1',
      '/households/current/members?x=1',
      '/households/current?x=1',
      '/users/me?x=1',
      '/users/me/api-keys?x=1',
      '/households/current/accounts?x=1',
      '/households/current/transactions?x=1',
    ]) {
      const res = await owner.api.get(path)
      expect(res.status, path).toBe(400)
      expect(res.body.code, path).toBe('VALIDATION_FAILED')
      expect(res.body.errors.map((e: { path: string }) => e.path).sort(), path).toEqual(
        [...new URL(path, 'http://x').searchParams.keys()].sort(),
      )
    }
  })

  it('caps a cursor list’s limit instead of refusing it', async () => {
    const owner = await server.newOwner()
    const res = await owner.api.get('/households/current/transactions?limit=1000')
    expect(res.status).toBe(200)
  })

  it('refuses PATCH /users/me/preferences with no body rather than wiping the preferences', async () => {
    const owner = await server.newOwner()
    expect((await owner.api.patch('/users/me/preferences', { theme: 'dark' })).status).toBe(200)
    const res = await owner.api.patch('/users/me/preferences', '')
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('VALIDATION_FAILED')
    expect((await owner.api.get('/users/me')).body.preferences).toEqual({ theme: 'dark' })
  })

  it('says what a field accepts when a value is of the wrong kind', async () => {
    const owner = await server.newOwner()
    const accounts = await owner.api.get('/households/current/transactions?hasTag=yes')
    expect(accounts.body.errors).toEqual([
      expect.objectContaining({ path: 'hasTag', message: 'Must be true or false.' }),
    ])
    const account = await owner.api.post('/households/current/accounts', { name: 'Cash', type: 'cash' })
    const force = await owner.api.delete(`/households/current/accounts/${account.body.id}?force=yes`)
    expect(force.body.errors).toEqual([
      expect.objectContaining({ path: 'force', message: 'Must be true or false.' }),
    ])
    const amount = await owner.api.post('/households/current/transactions', {
      accountId: account.body.id,
      date: '2026-01-02',
      amountCents: -1.5,
      payeeName: 'Shop',
    })
    expect(amount.status).toBe(400)
    expect(amount.body.errors).toEqual([
      expect.objectContaining({
        path: 'amountCents',
        message: expect.stringContaining('whole number of cents'),
      }),
    ])
  })

  it('refuses a body field the path already sets, so a write cannot be retargeted', async () => {
    const owner = await server.newOwner()
    const tag = await owner.api.post('/households/current/tags', { name: 'A' })
    const res = await owner.api.patch(`/households/current/tags/${tag.body.id}`, {
      id: tag.body.id,
      name: 'B',
    })
    expect(res.status).toBe(400)
    expect(res.body.errors).toEqual([expect.objectContaining({ path: 'id', code: 'unknown_field' })])
  })

  it('answers a write with a non-JSON body 415 and a malformed one 400 MALFORMED_JSON', async () => {
    const owner = await server.newOwner()
    const url = `${server.url}/households/current/tags`
    const headers = { authorization: `Bearer ${owner.api.token}` }
    const text = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'text/plain' },
      body: 'x',
    })
    expect(text.status).toBe(415)
    const bad = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{',
    })
    expect(bad.status).toBe(400)
    expect((await bad.json()).code).toBe('MALFORMED_JSON')
  })
})
