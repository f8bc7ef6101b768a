import { findActiveKey, type Store } from '@hearth/engine'
import type { MiddlewareHandler } from 'hono'
import { hashApiKey } from '../auth/api-key-token.ts'
import type { AppEnv } from './env.ts'
import { problem } from './problem.ts'

/** Paths anyone may read without a key: health, the OpenAPI document and the reference page. */
const PUBLIC = /^\/(healthz|openapi\.json|docs(\/.*)?)$/

/** Bearer authentication: no key, an unknown key or a revoked key is a 401. */
export function authenticate(store: Store): MiddlewareHandler<AppEnv> {
  return async function authenticate(c, next) {
    if (PUBLIC.test(c.req.path)) return next()
    const header = c.req.header('authorization') ?? ''
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
    const unauthorized = (detail: string) =>
      problem(c, 401, 'UNAUTHENTICATED', { detail, headers: { 'www-authenticate': 'Bearer realm="hearth"' } })
    if (!match) return unauthorized('Send an API key as `Authorization: Bearer <key>`.')
    const key = await findActiveKey(store.db, hashApiKey(match[1]!), new Date())
    if (!key) return unauthorized('The API key is unknown or has been revoked.')
    c.set('caller', key)
    c.get('logger').setBindings({ userId: key.userId, keyId: key.keyId })
    return next()
  }
}
