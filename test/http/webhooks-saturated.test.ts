import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mintApiKey } from '@hearth/server'
import { afterAll, describe, expect, it } from 'vitest'
import { startServerProcess } from '../durability/server-process.ts'
import { apiClient } from '../src/index.ts'
import { expectStatus, H } from './catalog-fixture.ts'
import { startReceiver } from './webhook-receiver.ts'

const folder = mkdtempSync(join(tmpdir(), 'hearth-webhook-saturated-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

describe('a webhook dispatcher holding all it may hold', () => {
  // The dispatcher holds 256 deliveries at most, 8 of a subscription whose receiver has not
  // answered yet: 32 subscriptions to a receiver that never answers, 8 events each, fill it. A
  // ninth event then asks for a claim there is no room for. That once spun the dispatcher's loop
  // in microtasks, and the whole server answered nothing until leases went stale (a timeout).
  it('keeps answering requests, in its own process, while a hanging receiver holds every slot', async () => {
    const token = mintApiKey().token
    const receiver = await startReceiver(() => 'hang')
    const server = await startServerProcess(folder, token, {
      env: {
        HEARTH_WEBHOOK_ALLOW_PRIVATE: 'true',
        HEARTH_WEBHOOK_SECRET_KEY: 'saturated-test-key',
        // Longer than the request below may take: a stall would outlast it.
        HEARTH_WEBHOOK_TIMEOUT_MS: '60000',
      },
    })
    try {
      const api = apiClient(server.url, token)
      for (let i = 0; i < 32; i++) {
        expectStatus(
          await api.post(`${H}/webhooks/subscriptions`, {
            url: `${receiver.url}?s=${i}`,
            eventTypes: ['tag.created'],
          }),
          201,
        )
      }
      for (let i = 0; i < 8; i++) expectStatus(await api.post(`${H}/tags`, { name: `Held ${i}` }), 201)
      // 64 attempts in flight (the process's limit), the rest held waiting for a slot.
      await receiver.waitFor(64, 60_000)
      expectStatus(await api.post(`${H}/tags`, { name: 'One more' }), 201)
      // Once its event has fanned out (the outbox worker turns at least once a second), the
      // dispatcher wants a claim it has no room for: the server must go on answering.
      for (let i = 0; i < 10; i++) {
        const res = await fetch(`${server.url}${H}/tags`, {
          headers: { authorization: `Bearer ${token}` },
          signal: AbortSignal.timeout(20_000),
        })
        expect(res.status).toBe(200)
        await res.arrayBuffer()
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
      // Every held delivery is still pending, none lost: 8 per subscription and the ninth queued.
      const subs = expectStatus(await api.get(`${H}/webhooks/subscriptions`), 200).items as any[]
      const log = expectStatus(
        await api.get(`${H}/webhooks/subscriptions/${subs[0].id}/deliveries?limit=100`),
        200,
      )
      expect(log.items).toHaveLength(9)
    } finally {
      await server.stop('SIGKILL')
    }
  }, 180_000)
})
