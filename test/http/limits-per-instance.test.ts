import { DEFAULT_RATE_LIMITS } from '@hearth/server'
import { describe, expect, it } from 'vitest'
import { apiClient, startTestServer, useTestServer } from '../src/index.ts'

const rateLimits = { ...DEFAULT_RATE_LIMITS, restPerKey: 5 }
const server = useTestServer({ rateLimits })

describe('limits are counted per server instance (docs/security.md, Limits per instance)', () => {
  it('serves a key that reached its limit on one instance from another instance on the same store', async () => {
    const second = await startTestServer({ rateLimits })
    try {
      const owner = await server.newOwner()
      for (let i = 0; i < 5; i++) expect((await owner.api.get('/users/me')).status).toBe(200)
      expect((await owner.api.get('/users/me')).status).toBe(429)
      // The same key, the same store, the next instance: a count of its own.
      const there = apiClient(second.url, owner.api.token)
      for (let i = 0; i < 5; i++) expect((await there.get('/users/me')).status).toBe(200)
      expect((await there.get('/users/me')).status).toBe(429)
    } finally {
      await second.close()
    }
  })
})
