import {
  ProblemSchema,
  SessionListSchema,
  SetPasswordBodySchema,
  SignedInSchema,
  SignInBodySchema,
} from '@hearth/contracts'
import {
  EngineError,
  findActiveKey,
  operations,
  passwordHashOf,
  runMutation,
  runQuery,
  type Session,
  type Store,
} from '@hearth/engine'
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { hashApiKey } from '../auth/api-key-token.ts'
import { hashPassword, verifyPassword } from '../auth/password-hash.ts'
import { passwordProblem } from '../auth/password-rules.ts'
import { checkPassword, type PasswordCheck } from '../auth/password-sign-in.ts'
import { fromSameOrigin } from '../auth/same-origin.ts'
import { clearSessionCookie } from '../auth/session-cookie.ts'
import type { SessionSettings } from '../auth/session-settings.ts'
import { startSession } from '../auth/start-session.ts'
import { type AppEnv, actorContext } from '../http/env.ts'
import { jsonBody, jsonResponse } from '../http/route.ts'
import { requireScope } from '../http/scope.ts'

const problemContent = { 'application/problem+json': { schema: ProblemSchema } }
const problemAnswer = (description: string) => ({ description, content: problemContent })

/** What the session routes need from the app. */
export interface SessionRouteOptions extends PasswordCheck {
  settings: SessionSettings
  corsOrigins: '*' | readonly string[]
}

/** A session as its list shows it, marked when it is the caller's own. */
export function presentSession(session: Session, currentId: string | undefined) {
  return { ...session, current: session.id === currentId }
}

/** Refuses a sign-in posted by another site's page (login CSRF); a request with no Origin at all is a program's. */
export function refuseCrossSite(c: Context, corsOrigins: '*' | readonly string[]): void {
  if (c.req.header('origin') === undefined && c.req.header('sec-fetch-site') === undefined) return
  if (!fromSameOrigin((name) => c.req.header(name), corsOrigins)) {
    throw new EngineError(403, 'CROSS_SITE_REFUSED', 'Sign in from a page of this server.')
  }
}

const signIn = createRoute({
  method: 'post',
  path: '/sessions',
  operationId: 'sessions.create',
  tags: ['Sign-in'],
  summary: 'Sign in',
  description:
    'Signs in with your email and password (or exchanges an API key, which is not kept) and sets the ' +
    'session cookie. With an authenticator app, `totpCode` (or `recoveryCode`) is needed too: without it ' +
    'the answer is 401 `SECOND_FACTOR_REQUIRED`. It sets the ' +
    'session cookie (`HttpOnly`, `SameSite=Lax`; `Secure` and named `__Host-hearth_session` over https). ' +
    'A cookie the browser already held is ended: each sign-in rotates the secret. Writes signed in by the ' +
    'cookie must come from a page of this server (its `Origin`).',
  security: [{}],
  request: { query: z.strictObject({}), body: jsonBody(SignInBodySchema) },
  responses: {
    201: jsonResponse(SignedInSchema, 'You are signed in; the cookie is set.'),
    400: problemAnswer('Invalid input: `VALIDATION_FAILED`, `MALFORMED_JSON`.'),
    401: problemAnswer(
      'The email and password do not match, or the key is unknown (`UNAUTHENTICATED`); a second factor is needed (`SECOND_FACTOR_REQUIRED`) or is wrong (`TOTP_CODE_INVALID`, `TOTP_CODE_USED`, `RECOVERY_CODE_INVALID`, `RECOVERY_CODE_USED`).',
    ),
    403: problemAnswer('Posted by another site’s page: `CROSS_SITE_REFUSED`.'),
    429: problemAnswer(
      'Too many wrong passwords for this account or from this address lately (`RATE_LIMITED`, with `Retry-After`); the right password is never answered this.',
    ),
  },
})

const list = createRoute({
  method: 'get',
  path: '/sessions',
  operationId: 'sessions.list',
  tags: ['Sign-in'],
  summary: 'List your sessions',
  description:
    'Your signed-in browsers and devices that can still be used, most recently used first; `current` marks the one asking. Requires scope `read:profile`.',
  security: [{ bearerAuth: [] }],
  middleware: [requireScope('read:profile')],
  request: { query: z.strictObject({}) },
  responses: {
    200: jsonResponse(SessionListSchema, 'Your sessions.'),
    400: problemAnswer('A query parameter was sent: `VALIDATION_FAILED`.'),
    401: problemAnswer('Not signed in: `UNAUTHENTICATED`.'),
    403: problemAnswer('The key lacks the scope: `INSUFFICIENT_SCOPE`.'),
  },
})

const revoke = createRoute({
  method: 'delete',
  path: '/sessions/{sessionId}',
  operationId: 'sessions.revoke',
  tags: ['Sign-in'],
  summary: 'Sign a session out',
  description:
    'Ends one of your sessions at once: REST, `/sync`, note rooms and the assistant refuse it within a second. `current` names the session asking (sign out), whose cookie is cleared. Requires scope `write:profile`.',
  security: [{ bearerAuth: [] }],
  middleware: [requireScope('write:profile')],
  request: { query: z.strictObject({}), params: z.object({ sessionId: z.string().min(1).max(64) }) },
  responses: {
    204: { description: 'The session has ended.' },
    400: problemAnswer('A query parameter was sent: `VALIDATION_FAILED`.'),
    401: problemAnswer('Not signed in: `UNAUTHENTICATED`.'),
    403: problemAnswer(
      'The key lacks the scope (`INSUFFICIENT_SCOPE`), or the cookie came from another site (`CROSS_SITE_REFUSED`).',
    ),
    404: problemAnswer('No live session of yours has this id: `NOT_FOUND`.'),
  },
})

const revokeAll = createRoute({
  method: 'delete',
  path: '/sessions',
  operationId: 'sessions.revokeAll',
  tags: ['Sign-in'],
  summary: 'Sign out everywhere',
  description:
    'Ends every session of yours but the one asking (when a session asks); each loses REST, `/sync`, note rooms and the assistant within a second. Requires scope `write:profile`.',
  security: [{ bearerAuth: [] }],
  middleware: [requireScope('write:profile')],
  request: { query: z.strictObject({}) },
  responses: {
    200: jsonResponse(z.object({ revoked: z.int() }), 'How many sessions ended.'),
    400: problemAnswer('A query parameter was sent: `VALIDATION_FAILED`.'),
    401: problemAnswer('Not signed in: `UNAUTHENTICATED`.'),
    403: problemAnswer(
      'The key lacks the scope (`INSUFFICIENT_SCOPE`), or the cookie came from another site (`CROSS_SITE_REFUSED`).',
    ),
  },
})

const setPassword = createRoute({
  method: 'put',
  path: '/users/me/password',
  operationId: 'passwords.set',
  tags: ['Sign-in'],
  summary: 'Set your password',
  description:
    'Sets your password (at least 12 characters, not a common password, nor one with digits or symbols added to it); `currentPassword` is required when you have one. Every other session of yours ends. Requires scope `write:profile`.',
  security: [{ bearerAuth: [] }],
  middleware: [requireScope('write:profile')],
  request: { query: z.strictObject({}), body: jsonBody(SetPasswordBodySchema) },
  responses: {
    200: jsonResponse(z.object({ sessionsEnded: z.int() }), 'The password is set.'),
    400: problemAnswer(
      'Invalid input (`VALIDATION_FAILED`, `MALFORMED_JSON`), or a password the rules refuse (`WEAK_PASSWORD`, naming why).',
    ),
    401: problemAnswer('Not signed in, or `currentPassword` is wrong: `UNAUTHENTICATED`.'),
    403: problemAnswer(
      'The key lacks the scope (`INSUFFICIENT_SCOPE`), or the cookie came from another site (`CROSS_SITE_REFUSED`).',
    ),
  },
})

/** A password the rules refuse: 400 naming why. */
export function assertPasswordAllowed(password: string, path = 'password'): void {
  const why = passwordProblem(password)
  if (why) {
    throw new EngineError(400, 'WEAK_PASSWORD', why, {
      errors: [{ path, message: why, code: 'weak_password' }],
    })
  }
}

/** Sign-in, sessions and your password. */
export function sessionRoutes(options: SessionRouteOptions) {
  const { store, settings, authFailures, corsOrigins } = options
  const app = new OpenAPIHono<AppEnv>()

  app.openapi(signIn, async (c) => {
    const body = c.req.valid('json' as never) as z.output<typeof SignInBodySchema>
    refuseCrossSite(c, corsOrigins)
    const address = c.get('clientAddress')
    if ('apiKey' in body) {
      const key = await authFailures.attempt(address, body.apiKey, async () => {
        const found = await findActiveKey(store.db, hashApiKey(body.apiKey), new Date())
        if (!found)
          throw new EngineError(401, 'UNAUTHENTICATED', 'The API key is unknown or has been revoked.')
        return found
      })
      // The session is the key's, as narrow as the key: an app signed in with a read-only key reads.
      const session = await startSession(c, store, settings, key.userId, body.deviceName, key.scopes)
      const email = await emailOf(store, key.userId)
      return c.json({ userId: key.userId, email, session: presentSession(session, session.id) }, 201)
    }
    const user = await checkPassword(c, options, body)
    if (user instanceof Response) return user as never
    const session = await startSession(c, store, settings, user.userId, body.deviceName)
    return c.json(
      { userId: user.userId, email: body.email, session: presentSession(session, session.id) },
      201,
    )
  })

  app.openapi(list, async (c) => {
    const caller = c.get('caller')
    const items = await runQuery(store.db, operations.sessions.list, {}, actorContext(c.var))
    return c.json({ items: items.map((s) => presentSession(s, caller.keyId)) }, 200)
  })

  app.openapi(revoke, async (c) => {
    const caller = c.get('caller')
    const { sessionId } = c.req.valid('param' as never) as { sessionId: string }
    const own = sessionId === 'current' || sessionId === caller.keyId
    if (sessionId === 'current' && caller.kind !== 'session' && caller.kind !== 'device') {
      throw new EngineError(
        404,
        'NOT_FOUND',
        'You are not signed in with a session: an API key is revoked under /users/me/api-keys.',
        {
          extra: { resource: 'Session' },
        },
      )
    }
    await runMutation(
      store.db,
      operations.sessions.revoke,
      { id: own ? caller.keyId : sessionId },
      actorContext(c.var),
    )
    if (own) clearSessionCookie(c)
    return c.body(null, 204)
  })

  app.openapi(revokeAll, async (c) => {
    const caller = c.get('caller')
    const { result } = await runMutation(
      store.db,
      operations.sessions.revokeAll,
      { exceptId: caller.kind === 'session' || caller.kind === 'device' ? caller.keyId : null },
      actorContext(c.var),
    )
    return c.json(result, 200)
  })

  app.openapi(setPassword, async (c) => {
    const caller = c.get('caller')
    const body = c.req.valid('json' as never) as z.output<typeof SetPasswordBodySchema>
    const current = await passwordHashOf(store.db, caller.userId)
    if (current !== null) {
      const ok = body.currentPassword !== undefined && (await verifyPassword(body.currentPassword, current))
      if (!ok) {
        throw new EngineError(401, 'UNAUTHENTICATED', 'The current password is wrong.', {
          errors: [{ path: 'currentPassword', message: 'Does not match your password.', code: 'mismatch' }],
        })
      }
    }
    assertPasswordAllowed(body.newPassword, 'newPassword')
    const { result } = await runMutation(
      store.db,
      operations.passwords.set,
      {
        hash: await hashPassword(body.newPassword),
        keepSessionId: caller.kind === 'session' ? caller.keyId : null,
      },
      actorContext(c.var),
    )
    return c.json(result, 200)
  })
  return app
}

async function emailOf(store: Store, userId: string): Promise<string | null> {
  const { email } = await runQuery(
    store.db,
    operations.profile.get,
    {},
    { userId, scopes: ['read:profile'], now: new Date() },
  )
  return email
}
