import { resolveRequestAccess, type Store } from '@hearth/engine'
import type { MiddlewareHandler } from 'hono'
import { bearerToken, hashApiKey } from '../auth/api-key-token.ts'
import type { AppEnv } from './env.ts'
import { problem } from './problem.ts'

/** Paths anyone may read without a key: health, the OpenAPI document, the reference page and the web app. */
const PUBLIC = /^\/(healthz|openapi\.json|docs(\/.*)?|app(\/.*)?)$/

/** Paths a caller may use with a key or without one: redeeming an invitation as a new user. */
const KEY_OPTIONAL = /^\/invitations\/redeem$/

/** The household a path names: `/households/{ref}` or below it. */
const HOUSEHOLD_PATH = /^\/households\/([^/]+)/

/**
 * Bearer authentication: no key, an unknown key or a revoked key is a 401. The caller's
 * membership of the household the path names is read in the same query, for `requireMembership`.
 */
export function authenticate(store: Store): MiddlewareHandler<AppEnv> {
  return async function authenticate(c, next) {
    if (PUBLIC.test(c.req.path)) return next()
    const header = c.req.header('authorization') ?? ''
    if (header === '' && KEY_OPTIONAL.test(c.req.path)) return next()
    const token = bearerToken(header)
    const unauthorized = (detail: string) =>
      problem(c, 401, 'UNAUTHENTICATED', { detail, headers: { 'www-authenticate': 'Bearer realm="hearth"' } })
    if (!token) return unauthorized('Send an API key as `Authorization: Bearer <key>`.')
    const householdRef = HOUSEHOLD_PATH.exec(c.req.path)?.[1] ?? null
    const access = await resolveRequestAccess(store.db, hashApiKey(token), householdRef, new Date())
    if (!access) return unauthorized('The API key is unknown or has been revoked.')
    const key = access.key
    c.set('caller', key)
    if (access.membership) c.set('household', access.membership)
    c.get('logger').setBindings({ userId: key.userId, keyId: key.keyId })
    return next()
  }
}
