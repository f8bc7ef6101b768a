import { ProblemSchema, RedeemSignInLinkBodySchema, ResetLinkSchema, SignedInSchema } from '@hearth/contracts'
import { EngineError, newUlid, operations, runMutation, type Store, signInLinkUser } from '@hearth/engine'
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { hashApiKey } from '../auth/api-key-token.ts'
import type { EmailVerifier } from '../auth/email-verification.ts'
import { hashPassword } from '../auth/password-hash.ts'
import { setSessionCookie } from '../auth/session-cookie.ts'
import type { SessionSettings } from '../auth/session-settings.ts'
import { mintLinkCode } from '../auth/session-token.ts'
import type { SignInMailer } from '../auth/sign-in-mail.ts'
import { newSessionArgs } from '../auth/start-session.ts'
import { type RedeemedPasskey, redeemedPasskey } from '../auth/webauthn.ts'
import { type AppEnv, householdContext } from '../http/env.ts'
import { unknownFields } from '../http/operation-route.ts'
import type { AuthFailures } from '../http/rate-limits.ts'
import { jsonBody, jsonResponse } from '../http/route.ts'
import { requireScope } from '../http/scope.ts'
import { assertPasswordAllowed, presentSession, refuseCrossSite } from './sessions.ts'

const problemContent = { 'application/problem+json': { schema: ProblemSchema } }
const problemAnswer = (description: string) => ({ description, content: problemContent })

/** How long an owner's reset link works. */
export const RESET_LINK_HOURS = 24

/** What the link routes need from the app. */
export interface SignInLinkRouteOptions {
  store: Store
  settings: SessionSettings
  authFailures: AuthFailures
  corsOrigins: '*' | readonly string[]
  mailer: SignInMailer | null
  /** Mails a link to verify the email a setup or reset link set. */
  emailVerifier?: EmailVerifier
}

/** The app's page that redeems a link's code: `/app/setup?code=…`. */
export function signInLinkUrl(origin: string, code: string): string {
  return `${origin}/app/setup?code=${encodeURIComponent(code)}`
}

/** Where people reach this server: `HEARTH_PUBLIC_URL`, or the origin this request was made to. */
export function publicOrigin(c: Context, settings: SessionSettings): string {
  return settings.publicUrl ?? new URL(c.req.url).origin
}

const redeem = createRoute({
  method: 'post',
  path: '/sign-in-links/redeem',
  operationId: 'signInLinks.redeem',
  tags: ['Sign-in'],
  summary: 'Set a password or a passkey with a link',
  description:
    'Redeems a setup link (printed at first start) or a reset link (issued by an owner): sets your password, ' +
    'or adds the passkey made for the options of `POST /sign-in-links/passkey/options` in its place ' +
    '(and sets your email, when you have none yet), ends every session you had, and signs this browser in with ' +
    'the session cookie, in one step. A link works once, until it expires; a refused passkey leaves it unused.',
  security: [{}],
  request: { query: z.strictObject({}), body: jsonBody(RedeemSignInLinkBodySchema) },
  responses: {
    201: jsonResponse(SignedInSchema, 'Your password or passkey is set and you are signed in.'),
    400: problemAnswer(
      'Invalid input (`VALIDATION_FAILED`, `MALFORMED_JSON`; `email` required when you have none; `password` or `passkey`, one of the two), a password the rules refuse (`WEAK_PASSWORD`, naming why), or a passkey answer that is none (`WEBAUTHN_RESPONSE_INVALID`), whose challenge is not this link’s, used or expired (`WEBAUTHN_CHALLENGE_INVALID`), or that does not verify for this server (`PASSKEY_REFUSED`).',
    ),
    403: problemAnswer('Posted by another site’s page: `CROSS_SITE_REFUSED`.'),
    404: problemAnswer('No link has this code: `NOT_FOUND`.'),
    409: problemAnswer(
      'Another user has this email (`EMAIL_TAKEN`), or the passkey is added already (`PASSKEY_ALREADY_ADDED`).',
    ),
    410: problemAnswer('The link was used (`LINK_USED`) or has expired (`LINK_EXPIRED`).'),
    429: problemAnswer(
      'A wrong or spent code from an address with too many failures lately (`RATE_LIMITED`, with `Retry-After`).',
    ),
  },
})

const createReset = createRoute({
  method: 'post',
  path: '/households/{householdId}/members/{userId}/reset-link',
  operationId: 'signInLinks.createReset',
  tags: ['Sign-in'],
  summary: "Issue a member's reset link",
  description:
    `Issues a one-time link (valid ${RESET_LINK_HOURS} h) with which the member sets a new password; an earlier unused link of theirs stops working. ` +
    'When the server sends mail (`HEARTH_SMTP_URL`) and the member has an email, the link is emailed to them too; ' +
    'either way the answer holds it for you to hand over. Owners only. Requires scope `write:households`.',
  security: [{ bearerAuth: [] }],
  middleware: [requireScope('write:households')],
  request: {
    query: z.strictObject({}),
    params: z.object({ householdId: z.string(), userId: z.string().min(1).max(64) }),
  },
  responses: {
    201: jsonResponse(ResetLinkSchema, 'The link, shown once.'),
    400: problemAnswer('A query parameter was sent: `VALIDATION_FAILED`.'),
    401: problemAnswer('Not signed in: `UNAUTHENTICATED`.'),
    403: problemAnswer(
      'Not an owner (`OWNER_ONLY`), the key lacks the scope (`INSUFFICIENT_SCOPE`), or the cookie came from another site (`CROSS_SITE_REFUSED`).',
    ),
    404: problemAnswer('No such household of yours, or no such member in it: `NOT_FOUND`.'),
  },
})

/**
 * The user a link's code is for (a setup or reset link's, or with `find` another kind's). A wrong code counts against its address as a wrong key does
 * (404, or 429 `RATE_LIMITED` past the limits); a right one is never refused.
 */
export async function linkUserOrRefuse(
  c: Context<AppEnv>,
  store: Store,
  authFailures: AuthFailures,
  codeHash: string,
  find: (db: Store['db'], codeHash: string) => Promise<string | null> = signInLinkUser,
): Promise<string> {
  const userId = await find(store.db, codeHash)
  if (userId) return userId
  const wait = authFailures.failed(c.get('clientAddress'), undefined)
  if (wait) {
    await authFailures.hold()
    // A problem's `headers` are sent as headers (http/problem.ts).
    throw new EngineError(429, 'RATE_LIMITED', 'Too many failed attempts; wait and try again.', {
      extra: { headers: { 'retry-after': String(wait) } },
    })
  }
  throw new EngineError(404, 'NOT_FOUND', 'No link has this code.', { extra: { resource: 'Sign-in link' } })
}

/** A route that takes no body refuses one that names fields, rather than ignoring them. */
export async function refuseBodyFields(c: Context<AppEnv>): Promise<void> {
  const text = (await c.req.text()).trim()
  if (text === '') return
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    throw unknownFields(['body'], 'This request takes no body.')
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw unknownFields(['body'], 'This request takes no body.')
  const keys = Object.keys(body)
  if (keys.length > 0) throw unknownFields(keys)
}

/** Setup and reset links: redeeming one, and an owner issuing one for a member. */
export function signInLinkRoutes({
  store,
  settings,
  authFailures,
  corsOrigins,
  mailer,
  emailVerifier,
}: SignInLinkRouteOptions) {
  const app = new OpenAPIHono<AppEnv>()

  app.openapi(redeem, async (c) => {
    const body = c.req.valid('json' as never) as z.output<typeof RedeemSignInLinkBodySchema>
    refuseCrossSite(c, corsOrigins)
    const codeHash = hashApiKey(body.code)
    const userId = await linkUserOrRefuse(c, store, authFailures, codeHash)
    if ((body.password === undefined) === (body.passkey === undefined)) {
      throw new EngineError(400, 'VALIDATION_FAILED', 'The request has invalid fields.', {
        errors: [
          {
            path: body.password === undefined ? 'password' : 'passkey',
            message:
              body.password === undefined
                ? 'Required: a password, or a passkey in its place.'
                : 'Send a password or a passkey, not both.',
            code: body.password === undefined ? 'required' : 'unknown_field',
          },
        ],
      })
    }
    let secret: { passwordHash: string } | { passkey: RedeemedPasskey }
    if (body.passkey) {
      secret = { passkey: await redeemedPasskey(c, settings, body.passkey) }
    } else {
      assertPasswordAllowed(body.password!)
      secret = { passwordHash: await hashPassword(body.password!) }
    }
    const { token, args } = newSessionArgs(c, settings, body.deviceName)
    const hadEmail = await store.db
      .selectFrom('users')
      .select('email')
      .where('id', '=', userId)
      .executeTakeFirst()
    const { result } = await runMutation(
      store.db,
      operations.signInLinks.redeem,
      { codeHash, ...secret, email: body.email, name: body.name, session: args },
      { userId, scopes: [], now: new Date() },
    )
    setSessionCookie(c, token, settings)
    // The email this link set (the first owner's) is mailed a link that verifies it.
    if (!hadEmail?.email) await emailVerifier?.offer(c, userId)
    return c.json({ ...result, session: presentSession(result.session, result.session.id) }, 201)
  })

  app.openapi(createReset, async (c) => {
    const { userId } = c.req.valid('param' as never) as { userId: string }
    await refuseBodyFields(c)
    const code = mintLinkCode()
    const expiresAt = new Date(Date.now() + RESET_LINK_HOURS * 3_600_000).toISOString()
    const { result } = await runMutation(
      store.db,
      operations.signInLinks.createReset,
      { id: newUlid(), userId, codeHash: code.hash, expiresAt },
      householdContext(c.var),
    )
    const url = signInLinkUrl(publicOrigin(c, settings), code.token)
    let emailed = false
    if (mailer && result.email) {
      try {
        await mailer.sendResetLink(result.email, url, expiresAt)
        emailed = true
      } catch (err) {
        // The link stands: the owner hands it over, as without mail.
        c.get('logger').warn({ err }, 'sending a reset link failed')
      }
    }
    return c.json({ id: result.id, userId, url, code: code.token, expiresAt, emailed }, 201)
  })
  return app
}
