import { createHash } from 'node:crypto'
import { beginIdempotent, finishIdempotent, releaseIdempotent, type Store } from '@hearth/engine'
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from './env.ts'
import { problem } from './problem.ts'

/** How long a first run may take before a retry is allowed to take over its key. */
const LEASE_MS = 60_000

/**
 * Idempotency-Key on POST, PATCH and PUT: the first response (anything but a 5xx) is stored per
 * caller and key for 24 hours and replayed, marked `Idempotent-Replayed: true`, for a retry with
 * the same method, path and body. Another request under the same key gets 422; a retry while the
 * first is still running gets 409.
 */
export function idempotency(store: Store): MiddlewareHandler<AppEnv> {
  return async function idempotency(c, next) {
    const key = c.req.header('idempotency-key')
    if (!key || !['POST', 'PATCH', 'PUT'].includes(c.req.method) || !c.get('caller')) return next()
    if (key.length > 255) {
      return problem(c, 400, 'INVALID_IDEMPOTENCY_KEY', {
        detail: 'Idempotency-Key must be at most 255 characters.',
      })
    }
    const userId = c.get('caller').userId
    const body = await c.req.text()
    const fingerprint = createHash('sha256').update(`${c.req.method} ${c.req.path}\n${body}`).digest('hex')
    const decision = await beginIdempotent(store.db, { userId, key, fingerprint, leaseMs: LEASE_MS })
    switch (decision.kind) {
      case 'mismatch':
        return problem(c, 422, 'IDEMPOTENCY_KEY_REUSED', {
          detail:
            'This Idempotency-Key was already used for a different request. Use a new key for a new request.',
        })
      case 'in-progress':
        return problem(c, 409, 'IDEMPOTENCY_KEY_IN_USE', {
          detail: 'A request with this Idempotency-Key is still being processed. Retry later.',
          headers: { 'retry-after': '1' },
        })
      case 'replay':
        return new Response(decision.body, {
          status: decision.status,
          headers: {
            ...(decision.contentType && { 'content-type': decision.contentType }),
            'idempotent-replayed': 'true',
          },
        })
    }
    await next()
    if (c.res.status >= 500) {
      await releaseIdempotent(store.db, userId, key)
      return
    }
    await finishIdempotent(store.db, {
      userId,
      key,
      status: c.res.status,
      contentType: c.res.headers.get('content-type'),
      body: await c.res.clone().text(),
    })
  }
}
