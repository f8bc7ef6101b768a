import { loadConfig } from '@hearth/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dayAt, FakeSimplefin } from '../src/fake-simplefin.ts'
import { apiClient, isolatedStore, newOwner, startTestServer } from '../src/index.ts'
import { expectStatus, H } from './catalog-fixture.ts'

const bridge = new FakeSimplefin()
beforeAll(() => bridge.start())
afterAll(() => bridge.close())

/** A server on `store` whose secret key is `secretKey` (and `previousSecretKey`). */
function serverWith(
  store: Awaited<ReturnType<typeof isolatedStore>>,
  secretKey: string,
  previousSecretKey?: string,
) {
  const defaults = loadConfig({})
  return startTestServer(
    {
      ...store.config,
      webhooks: { ...defaults.webhooks, allowPrivate: true, secretKey, previousSecretKey, timeoutMs: 2000 },
      banks: { intervalMs: 3_600_000, minGapMs: 0, initialDays: 90, retryDelaysMs: [], timeoutMs: 2_000 },
    },
    { ownStore: true },
  )
}

describe('a bank connection’s sealed access across secret keys', () => {
  it('is sealed again under a rotated key, and a key that cannot open it marks the connection, never a 500', {
    timeout: 120_000,
  }, async () => {
    const store = await isolatedStore()
    bridge.accounts.push({
      id: 'ACT-keys',
      name: 'Checking',
      currency: 'USD',
      balance: '1.00',
      'balance-date': dayAt(new Date(), 0),
      org: { name: 'Key Bank', domain: 'keybank.example' },
      transactions: [{ id: 'K1', posted: dayAt(new Date(), -2), amount: '-1.00', description: 'KEY' }],
    })
    try {
      let server = await serverWith(store, 'first-key')
      const owner = await newOwner(server)
      const c = expectStatus(
        await owner.api.post(`${H}/bank-connections`, { setupToken: bridge.setupToken() }),
        201,
      )
      const sealed = async () =>
        (
          await server.store.db
            .selectFrom('bank_connections')
            .select('access_sealed')
            .where('id', '=', c.id)
            .executeTakeFirstOrThrow()
        ).access_sealed
      const first = await sealed()
      await server.close()

      // Rotated: the next start seals the access under the new key, and syncs with it.
      server = await serverWith(store, 'second-key', 'first-key')
      let api = apiClient(server.url, owner.api.token)
      expect(await sealed()).not.toBe(first)
      expect(expectStatus(await api.post(`${H}/bank-connections/${c.id}/sync`), 200)).toMatchObject({
        status: 'active',
        lastSync: { outcome: 'synced' },
      })
      await server.close()

      // A key that opens nothing: the sync says so on the connection, and the owners hear of it.
      server = await serverWith(store, 'unrelated-key')
      api = apiClient(server.url, owner.api.token)
      const refused = expectStatus(await api.post(`${H}/bank-connections/${c.id}/sync`), 200)
      expect(refused).toMatchObject({ status: 'needsAttention', lastSync: { outcome: 'failed' } })
      expect(refused.attentionReason).toMatch(/sealed under another HEARTH_WEBHOOK_SECRET_KEY/)
      await server.close()
    } finally {
      await store.drop()
    }
  })
})
