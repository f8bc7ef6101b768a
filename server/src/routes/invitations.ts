import { ProblemSchema, RedeemInvitationBodySchema, RedemptionSchema } from '@hearth/contracts'
import {
  EngineError,
  type HouseholdContext,
  invitationHousehold,
  newUlid,
  operations,
  redeemChallengeUser,
  runMutation,
  type Store,
} from '@hearth/engine'
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { hashApiKey, mintApiKey } from '../auth/api-key-token.ts'
import type { EmailVerifier } from '../auth/email-verification.ts'
import { hashPassword } from '../auth/password-hash.ts'
import { setSessionCookie } from '../auth/session-cookie.ts'
import { DEFAULT_SESSION_SETTINGS, type SessionSettings } from '../auth/session-settings.ts'
import { newSessionArgs } from '../auth/start-session.ts'
import { type RedeemedPasskey, redeemedPasskey } from '../auth/webauthn.ts'
import type { AppEnv } from '../http/env.ts'
import { jsonBody, jsonResponse } from '../http/route.ts'
import { assertPasswordAllowed, presentSession, refuseCrossSite } from './sessions.ts'

const problemContent = { 'application/problem+json': { schema: ProblemSchema } }

const redeem = createRoute({
  method: 'post',
  path: '/invitations/redeem',
  operationId: 'invitations.redeem',
  tags: ['Households'],
  summary: 'Redeem an invitation',
  description:
    'Joins the household an owner invited you to. Without a key, a new user is made (send `name`); ' +
    'with a key, you join as its user. Either way the answer holds your first key for that household ' +
    '(`apiKey.key`, shown once) with the scopes the invitation names. A code works once. ' +
    'Without a key you may sign up instead: send `email` and `password`, or `email` and a `passkey` made for ' +
    'the options of `POST /invitations/passkey/options`, and the answer sets the session cookie (`session`, ' +
    '`apiKey: null`) rather than making a key, in the same step (docs/api/sign-in.md).',
  security: [{}, { bearerAuth: [] }],
  request: { query: z.strictObject({}), body: jsonBody(RedeemInvitationBodySchema) },
  responses: {
    201: jsonResponse(RedemptionSchema, 'You are a member; your new key is in `apiKey.key`.'),
    400: {
      description:
        'Invalid input (`VALIDATION_FAILED`, `MALFORMED_JSON`), a password the rules refuse (`WEAK_PASSWORD`), or a passkey answer that is none (`WEBAUTHN_RESPONSE_INVALID`), whose challenge is not this invitation’s, used or expired (`WEBAUTHN_CHALLENGE_INVALID`), or that does not verify for this server (`PASSKEY_REFUSED`).',
      content: problemContent,
    },
    401: {
      description: 'A key was sent and it is unknown or revoked: `UNAUTHENTICATED`.',
      content: problemContent,
    },
    403: {
      description: 'A sign-up (`password` or `passkey`) posted by another site’s page: `CROSS_SITE_REFUSED`.',
      content: problemContent,
    },
    404: { description: 'No invitation has this code: `NOT_FOUND`.', content: problemContent },
    409: {
      description:
        'You already belong to the household (`ALREADY_MEMBER`), the email is taken (`EMAIL_TAKEN`), or the passkey is added already (`PASSKEY_ALREADY_ADDED`).',
      content: problemContent,
    },
    410: {
      description:
        'The code was used (`INVITATION_USED`), revoked (`INVITATION_REVOKED`) or expired (`INVITATION_EXPIRED`).',
      content: problemContent,
    },
    429: {
      description:
        'A wrong or spent code from an address with too many failures lately (`RATE_LIMITED`, with `Retry-After`); a right code is never answered this.',
      content: problemContent,
    },
  },
})

/** Redeeming an invitation: the one route a caller may use with or without a key. */
export function invitationRoutes(
  store: Store,
  sessions: SessionSettings = DEFAULT_SESSION_SETTINGS,
  corsOrigins: '*' | readonly string[] = '*',
  emailVerifier?: EmailVerifier,
) {
  const app = new OpenAPIHono<AppEnv>()
  app.openapi(redeem, async (c) => {
    // The route's schema validated the body (a 400 otherwise); its type is not inferred across packages' zod.
    const body = c.req.valid('json' as never) as z.output<typeof RedeemInvitationBodySchema>
    const caller = c.get('caller') as AppEnv['Variables']['caller'] | undefined
    const codeHash = hashApiKey(body.code)
    const householdId = await invitationHousehold(store.db, codeHash)
    if (!householdId)
      throw new EngineError(404, 'NOT_FOUND', 'No invitation has this code.', {
        extra: { resource: 'Invitation' },
      })
    if (caller && (body.name !== undefined || body.email != null || body.timeZone != null)) {
      throw new EngineError(400, 'VALIDATION_FAILED', 'The request has invalid fields.', {
        errors: ['name', 'email', 'timeZone']
          .filter((k) => body[k as keyof typeof body] != null)
          .map((k) => ({
            path: k,
            message: 'Unknown field: you join as the user of your key.',
            code: 'unknown_field',
          })),
      })
    }
    for (const field of ['password', 'passkey'] as const) {
      if (body[field] !== undefined && (caller || !body.email)) {
        throw new EngineError(400, 'VALIDATION_FAILED', 'The request has invalid fields.', {
          errors: [
            caller
              ? {
                  path: field,
                  message: 'Unknown field: you join as the user of your key.',
                  code: 'unknown_field',
                }
              : {
                  path: 'email',
                  message: `Required with a ${field}: you sign in with it.`,
                  code: 'required',
                },
          ],
        })
      }
    }
    if (body.password !== undefined && body.passkey !== undefined) {
      throw new EngineError(400, 'VALIDATION_FAILED', 'The request has invalid fields.', {
        errors: [
          { path: 'passkey', message: 'Send a password or a passkey, not both.', code: 'unknown_field' },
        ],
      })
    }
    if (!caller && body.name === undefined) {
      throw new EngineError(400, 'VALIDATION_FAILED', 'The request has invalid fields.', {
        errors: [{ path: 'name', message: 'Required when you call without a key.', code: 'required' }],
      })
    }
    // Signing up: the new person gets a password or a passkey, and this browser a session, in place of a key.
    const signUp = caller ? null : await signUpArgs(c, body, codeHash)
    const joining = caller
      ? null
      : {
          id: signUp?.userId ?? newUlid(),
          name: body.name!,
          email: body.email,
          timeZone: body.timeZone,
          ...(signUp?.passwordHash && { passwordHash: signUp.passwordHash }),
          ...(signUp?.passkey && { passkey: signUp.passkey }),
        }
    const minted = mintApiKey()
    // The redeemer acts in the household they are joining, with no role in it until the run ends.
    const ctx: HouseholdContext = {
      userId: caller?.userId ?? joining!.id,
      scopes: caller?.scopes ?? [],
      now: new Date(),
      householdId,
      role: 'member',
    }
    const { result } = await runMutation(
      store.db,
      operations.invitations.redeem,
      {
        codeHash,
        ...(joining && { newUser: joining }),
        ...(signUp
          ? { session: signUp.session.args }
          : {
              key: {
                id: newUlid(),
                name: body.keyName ?? 'Invitation key',
                keyHash: minted.hash,
                prefix: minted.prefix,
              },
            }),
      },
      ctx,
    )
    // A person made with an email is mailed a link that verifies it.
    if (joining?.email) await emailVerifier?.offer(c, joining.id)
    if (signUp) {
      setSessionCookie(c, signUp.session.token, sessions)
      return c.json(
        { ...result, apiKey: null, session: presentSession(result.session!, result.session!.id) },
        201,
      )
    }
    return c.json({ ...result, apiKey: { ...result.apiKey, key: minted.token } }, 201)
  })

  /**
   * A sign-up's password hash (after the password passed the rules) or verified passkey, and its
   * session; null when the redeem makes a key instead. With a passkey, the new person's id is the
   * one its challenge was handed out for (a challenge unknown by then is refused in the redeem).
   */
  async function signUpArgs(c: Context, body: z.output<typeof RedeemInvitationBodySchema>, codeHash: string) {
    if (body.password === undefined && body.passkey === undefined) return null
    refuseCrossSite(c, corsOrigins)
    let secret: { userId: string | null; passwordHash?: string; passkey?: RedeemedPasskey }
    if (body.passkey) {
      const passkey = await redeemedPasskey(c, sessions, body.passkey)
      secret = {
        userId: await redeemChallengeUser(store.db, passkey.challenge, codeHash, new Date()),
        passkey,
      }
    } else {
      assertPasswordAllowed(body.password!)
      secret = { userId: null, passwordHash: await hashPassword(body.password!) }
    }
    return { ...secret, session: newSessionArgs(c, sessions, body.deviceName) }
  }
  return app
}
