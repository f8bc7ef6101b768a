import { describe, expect, it } from 'vitest'
import { apiClient, useTestServer } from '../src/index.ts'

const server = useTestServer()

describe('profile', () => {
  it('reads and updates the caller’s profile', async () => {
    const owner = await server.newOwner()
    const me = await owner.api.get('/users/me')
    expect(me.status).toBe(200)
    expect(me.body).toMatchObject({
      id: owner.userId,
      defaultHouseholdId: owner.householdId,
      preferences: {},
    })
    const res = await owner.api.patch('/users/me', { name: 'Ada', timeZone: 'Europe/Paris' })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ name: 'Ada', timeZone: 'Europe/Paris' })
  })

  it('refuses a default household the caller does not belong to', async () => {
    const a = await server.newOwner()
    const b = await server.newOwner()
    const res = await a.api.patch('/users/me', { defaultHouseholdId: b.householdId })
    expect(res.status).toBe(404)
    expect(res.body.code).toBe('NOT_FOUND')
  })

  it('replaces the preferences blob whole', async () => {
    const owner = await server.newOwner()
    await owner.api.patch('/users/me/preferences', { theme: 'dark', density: 'compact' })
    const res = await owner.api.patch('/users/me/preferences', { theme: 'light' })
    expect(res.status).toBe(200)
    expect(res.body.preferences).toEqual({ theme: 'light' })
    expect((await owner.api.get('/users/me')).body.preferences).toEqual({ theme: 'light' })
  })

  it('refuses preferences that are not an object', async () => {
    const owner = await server.newOwner()
    for (const body of [[1, 2], 'dark', 42, null]) {
      const res = await owner.api.patch('/users/me/preferences', JSON.stringify(body))
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body.code).toBe('VALIDATION_FAILED')
    }
  })

  it('refuses preferences over 16 KiB', async () => {
    const owner = await server.newOwner()
    const res = await owner.api.patch('/users/me/preferences', { big: 'x'.repeat(17 * 1024) })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('VALIDATION_FAILED')
  })
})

describe('API keys over HTTP', () => {
  it('returns a new key once, and never again', async () => {
    const owner = await server.newOwner()
    const created = await owner.api.post('/users/me/api-keys', { name: 'reader', scopes: ['read:profile'] })
    expect(created.status).toBe(201)
    expect(created.body.key).toMatch(/^hth_/)
    expect(created.body.scopes).toEqual(['read:profile'])
    const list = await owner.api.get('/users/me/api-keys')
    expect(list.status).toBe(200)
    const listed = list.body.items.find((k: any) => k.id === created.body.id)
    expect(listed).toMatchObject({ name: 'reader', prefix: created.body.key.slice(0, 8) })
    expect(JSON.stringify(list.body)).not.toContain(created.body.key)
    expect(listed.key).toBeUndefined()
  })

  it('records when a key was last used', async () => {
    const owner = await server.newOwner()
    const created = await owner.api.post('/users/me/api-keys', { name: 'used', scopes: ['read:profile'] })
    expect(created.body.lastUsedAt).toBeNull()
    await apiClient(server.url, created.body.key).get('/users/me')
    const listed = (await owner.api.get('/users/me/api-keys')).body.items.find(
      (k: any) => k.id === created.body.id,
    )
    expect(listed.lastUsedAt).not.toBeNull()
  })

  it('refuses scopes beyond the calling key’s', async () => {
    const owner = await server.newOwner(['read:profile', 'write:profile'])
    const res = await owner.api.post('/users/me/api-keys', { name: 'too much', scopes: ['write:accounts'] })
    expect(res.status).toBe(403)
    expect(res.body.code).toBe('SCOPE_NOT_GRANTABLE')
  })

  it('refuses the fields the server makes rather than silently replacing them', async () => {
    const owner = await server.newOwner()
    const res = await owner.api.post('/users/me/api-keys', {
      name: 'mine',
      scopes: ['read:profile'],
      keyHash: 'a'.repeat(64),
      prefix: 'hth_mine',
    })
    expect(res.status).toBe(400)
    expect(res.body.errors).toEqual([
      { path: 'keyHash', message: 'Unknown field: the server sets it.', code: 'unknown_field' },
      { path: 'prefix', message: 'Unknown field: the server sets it.', code: 'unknown_field' },
    ])
  })

  it('refuses unknown scopes and empty scope lists', async () => {
    const owner = await server.newOwner()
    for (const scopes of [['read:everything'], []]) {
      const res = await owner.api.post('/users/me/api-keys', { name: 'bad', scopes })
      expect(res.status).toBe(400)
      expect(res.body.errors[0].path).toMatch(/^scopes/)
    }
  })

  it('needs write:profile to create and read:profile to list', async () => {
    const reader = await server.newOwner(['read:profile'])
    expect((await reader.api.get('/users/me/api-keys')).status).toBe(200)
    const res = await reader.api.post('/users/me/api-keys', { name: 'x', scopes: ['read:profile'] })
    expect(res.status).toBe(403)
    expect(res.body.requiredScope).toBe('write:profile')
  })

  it("cannot revoke another user's key", async () => {
    const a = await server.newOwner()
    const b = await server.newOwner()
    const created = await b.api.post('/users/me/api-keys', { name: 'b key', scopes: ['read:profile'] })
    const res = await a.api.delete(`/users/me/api-keys/${created.body.id}`)
    expect(res.status).toBe(404)
    expect((await apiClient(server.url, created.body.key).get('/users/me')).status).toBe(200)
  })
})
