import type { RunningServer, WebhookConfig } from '@hearth/server'
import { secretBox } from '@hearth/server'
import { ulid } from 'ulidx'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient, isolatedStore, newOwner, startTestServer } from '../src/index.ts'
import { expectProblem, expectStatus, H } from './catalog-fixture.ts'
import { startReceiver } from './webhook-receiver.ts'

const OLD = 'rotation-old-key'
const NEW = 'rotation-new-key'
const SUBS = `${H}/webhooks/subscriptions`

// A store of its own: a start re-seals every subscription of its store, and other files' servers
// open theirs with the test key.
let store: Awaited<ReturnType<typeof isolatedStore>>
beforeAll(async () => {
  store = await isolatedStore()
})
afterAll(() => store.drop())

function start(keys: Pick<WebhookConfig, 'secretKey' | 'previousSecretKey'>): Promise<RunningServer> {
  return startTestServer(
    {
      ...store.config,
      webhooks: { allowPrivate: true, timeoutMs: 2000, retryScheduleMs: [100, 200, 400], ...keys },
    },
    { ownStore: true },
  )
}

/** A fresh client for a server (the last one's pooled connection died with it). */
const clientOf = (server: RunningServer, token: string) => apiClient(server.url, token)

describe('rotating HEARTH_WEBHOOK_SECRET_KEY (docs/security.md)', () => {
  it('re-seals every webhook secret under the new key at start, keeps signing, and replays answers sealed under the previous key', async () => {
    const receiver = await startReceiver()
    let server = await start({ secretKey: OLD })
    const owner = await newOwner(server)
    const create = { url: receiver.url, eventTypes: ['tag.created'] }
    const createHeaders = { 'idempotency-key': `create-${ulid()}` }
    const sub = expectStatus(await owner.api.post(SUBS, create, createHeaders), 201)
    const rotated = expectStatus(await owner.api.post(`${SUBS}/${sub.id}/rotate-secret`), 200)
    await server.close()

    // The new key, with the old one as previous.
    server = await start({ secretKey: NEW, previousSecretKey: OLD })
    try {
      const row = await server.store.db
        .selectFrom('webhook_subscriptions')
        .select(['secret_sealed', 'previous_secret_sealed'])
        .where('id', '=', sub.id)
        .executeTakeFirstOrThrow()
      const newOnly = secretBox(NEW)
      expect(newOnly.open(row.secret_sealed)).toBe(rotated.secret)
      expect(newOnly.open(row.previous_secret_sealed!)).toBe(sub.secret)
      const api = clientOf(server, owner.api.token)
      const again = await api.post(SUBS, create, createHeaders)
      expect(again.status).toBe(201)
      expect(again.body).toEqual(sub)
      expectStatus(await api.post(`${SUBS}/${sub.id}/test`), 202)
      await receiver.waitFor(1)
      receiver.verifyAll(rotated.secret)
      receiver.verifyAll(sub.secret)
    } finally {
      await server.close()
    }

    // The previous key removed: the secrets still sign; answers sealed under it cannot be shown.
    server = await start({ secretKey: NEW })
    try {
      const api = clientOf(server, owner.api.token)
      expectStatus(await api.post(`${SUBS}/${sub.id}/test`), 202)
      await receiver.waitFor(2)
      receiver.verifyAll(rotated.secret)
      expectProblem(await api.post(SUBS, create, createHeaders), 410, 'SECRET_NOT_REPLAYABLE')
    } finally {
      await server.close()
    }
  }, 180_000)

  it('re-seals secrets stored plain once a key is set', async () => {
    let server = await start({ secretKey: undefined })
    const owner = await newOwner(server)
    const sub = expectStatus(
      await owner.api.post(SUBS, { url: 'http://127.0.0.1:9/', eventTypes: ['*'] }),
      201,
    )
    await server.close()
    server = await start({ secretKey: NEW })
    try {
      const row = await server.store.db
        .selectFrom('webhook_subscriptions')
        .select('secret_sealed')
        .where('id', '=', sub.id)
        .executeTakeFirstOrThrow()
      expect(row.secret_sealed).toMatch(/^v1:/)
      expect(secretBox(NEW).open(row.secret_sealed)).toBe(sub.secret)
    } finally {
      await server.close()
    }
  }, 180_000)
})
