import { resolveRequestAccess, type Store } from '@hearth/engine'
import type { MiddlewareHandler } from 'hono'
import { bearerToken, hashApiKey } from '../auth/api-key-token.ts'
import { fromSameOrigin } from '../auth/same-origin.ts'
import { sessionCookieOf } from '../auth/session-cookie.ts'
import type { AppEnv } from './env.ts'
import { problem } from './problem.ts'

/**
 * Paths anyone may read without a key: health and readiness, the OpenAPI document, the reference
 * page, the web app, and signing in with the OpenID Connect provider (routes/oidc.ts).
 */
const PUBLIC = /^\/(healthz|readyz|openapi\.json|docs(\/.*)?|app(\/.*)?|oidc|oidc\/sign-in|oidc\/callback)$/

/** Paths a caller may use with a key or without one: redeeming an invitation as a new user. */
const KEY_OPTIONAL = /^\/invitations\/redeem$/

/**
 * Signing in: the credential is in the body (a password, a passkey's answer, a link's or an
 * invitation's code for a passkey's challenge, a mailed email verification link's code, a key to exchange, a device's refresh token), or a
 * device is signed in with the request's own (routes/devices.ts).
 */
const SIGN_IN =
  /^\/(sessions(\/passkey(\/options)?)?|sign-in-links\/(redeem|passkey\/options)|email-verifications\/verify|invitations\/passkey\/options|devices|devices\/refresh)$/

/** The household a path names: `/households/{ref}` or below it. */
const HOUSEHOLD_PATH = /^\/households\/([^/]+)/

/** Methods that change nothing, which a cookie may carry from anywhere. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** What authentication needs besides the store. */
export interface AuthenticateOptions {
  /** Origins besides the server's own whose pages may write with a session cookie. */
  corsOrigins?: '*' | readonly string[]
}

/**
 * Authentication: an API key (or a session token) as `Authorization: Bearer`, or the web app's
 * session cookie; none, an unknown, revoked or expired one is a 401. A write that a cookie
 * authenticates must come from a page of this server (its `Origin`), so another site cannot make a
 * signed-in browser write (CSRF). The caller's membership of the household the path names is read
 * in the same query, for `requireMembership`.
 */
export function authenticate(store: Store, options: AuthenticateOptions = {}): MiddlewareHandler<AppEnv> {
  return async function authenticate(c, next) {
    if (PUBLIC.test(c.req.path)) return next()
    if (c.req.method === 'POST' && SIGN_IN.test(c.req.path)) return next()
    const header = c.req.header('authorization') ?? ''
    const bearer = bearerToken(header)
    // A key sent is the credential; without one (no header, or `Bearer` and nothing), the cookie is.
    const cookie = bearer ? undefined : sessionCookieOf(c)
    if (header === '' && cookie === undefined && KEY_OPTIONAL.test(c.req.path)) return next()
    const token = bearer ?? cookie
    const unauthorized = (detail: string) =>
      problem(c, 401, 'UNAUTHENTICATED', { detail, headers: { 'www-authenticate': 'Bearer realm="hearth"' } })
    if (!token) return unauthorized('Send an API key as `Authorization: Bearer <key>`, or sign in.')
    if (cookie !== undefined && !SAFE_METHODS.has(c.req.method)) {
      if (!fromSameOrigin((name) => c.req.header(name), options.corsOrigins ?? '*')) {
        return problem(c, 403, 'CROSS_SITE_REFUSED', {
          detail:
            'A write signed in by cookie must come from a page of this server (its Origin header); another site cannot act for you.',
        })
      }
    }
    const householdRef = HOUSEHOLD_PATH.exec(c.req.path)?.[1] ?? null
    const access = await resolveRequestAccess(store.db, hashApiKey(token), householdRef, new Date())
    if (!access) {
      return unauthorized(
        cookie !== undefined
          ? 'Your session has ended (signed out, expired or revoked); sign in again.'
          : 'The API key is unknown or has been revoked.',
      )
    }
    const key = access.key
    c.set('caller', { ...key, viaCookie: cookie !== undefined })
    if (access.membership) c.set('household', access.membership)
    c.get('logger').setBindings({ userId: key.userId, keyId: key.keyId })
    return next()
  }
}
