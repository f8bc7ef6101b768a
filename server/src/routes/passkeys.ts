import {
  AddPasskeyBodySchema,
  PasskeyListSchema,
  PasskeySchema,
  PasskeySignInBodySchema,
  ProblemSchema,
  RedeemPasskeyOptionsBodySchema,
  RenamePasskeyBodySchema,
  SignedInSchema,
  WebAuthnOptionsSchema,
} from '@hearth/contracts'
import {
  EngineError,
  insertChallenge,
  newUlid,
  operations,
  passkeyByCredentialId,
  passkeyCredentialIdsOf,
  runMutation,
  runQuery,
  type Store,
} from '@hearth/engine'
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import type { AuthenticationResponseJSON, VerifiedAuthenticationResponse } from '@simplewebauthn/server'
import { rateLimiter } from 'hono-rate-limiter'
import { hashApiKey } from '../auth/api-key-token.ts'
import type { SessionSettings } from '../auth/session-settings.ts'
import { startSession } from '../auth/start-session.ts'
import {
  CHALLENGE_MS,
  fromBase64Url,
  passkeyRegistrationOptions,
  refusedPasskey,
  relyingParty,
  takeAnsweredChallenge,
  verifiedPasskey,
  webauthnLibrary,
} from '../auth/webauthn.ts'
import { type AppEnv, actorContext } from '../http/env.ts'
import { problem } from '../http/problem.ts'
import type { AuthFailures } from '../http/rate-limits.ts'
import { jsonBody, jsonResponse } from '../http/route.ts'
import { requireScope } from '../http/scope.ts'
import { presentSession, refuseCrossSite } from './sessions.ts'
import { linkUserOrRefuse, refuseBodyFields } from './sign-in-links.ts'

const problemContent = { 'application/problem+json': { schema: ProblemSchema } }
const problemAnswer = (description: string) => ({ description, content: problemContent })
const signedInOnly = {
  401: problemAnswer('Not signed in: `UNAUTHENTICATED`.'),
  403: problemAnswer(
    'The key lacks the scope (`INSUFFICIENT_SCOPE`), or the cookie came from another site (`CROSS_SITE_REFUSED`).',
  ),
}
const PasskeyIdParams = z.object({ passkeyId: z.string().min(1).max(64) })

const registrationOptions = createRoute({
  method: 'post',
  path: '/users/me/passkeys/options',
  operationId: 'passkeys.registrationOptions',
  tags: ['Sign-in'],
  summary: 'Start adding a passkey',
  description:
    'Options for `navigator.credentials.create()` (a discoverable credential for this server’s RP ID, your passkeys excluded); the challenge works once, for 5 minutes. Requires scope `write:profile`.',
  security: [{ bearerAuth: [] }],
  middleware: [requireScope('write:profile')],
  request: { query: z.strictObject({}) },
  responses: {
    200: jsonResponse(WebAuthnOptionsSchema, 'The options, to hand to the browser.'),
    400: problemAnswer('A query parameter was sent: `VALIDATION_FAILED`.'),
    ...signedInOnly,
  },
})

const add = createRoute({
  method: 'post',
  path: '/users/me/passkeys',
  operationId: 'passkeys.add',
  tags: ['Sign-in'],
  summary: 'Add a passkey',
  description:
    'Adds the passkey the browser made for the options of `POST /users/me/passkeys/options`, under a name of yours. Requires scope `write:profile`.',
  security: [{ bearerAuth: [] }],
  middleware: [requireScope('write:profile')],
  request: { query: z.strictObject({}), body: jsonBody(AddPasskeyBodySchema) },
  responses: {
    201: jsonResponse(PasskeySchema, 'The passkey is added.'),
    400: problemAnswer(
      'Invalid input (`VALIDATION_FAILED`, `MALFORMED_JSON`), an answer that is no WebAuthn response (`WEBAUTHN_RESPONSE_INVALID`), whose challenge is unknown, used or expired (`WEBAUTHN_CHALLENGE_INVALID`), or that does not verify for this server (`PASSKEY_REFUSED`).',
    ),
    ...signedInOnly,
    409: problemAnswer('This passkey is added already: `PASSKEY_ALREADY_ADDED`.'),
  },
})

const list = createRoute({
  method: 'get',
  path: '/users/me/passkeys',
  operationId: 'passkeys.list',
  tags: ['Sign-in'],
  summary: 'List your passkeys',
  description: 'Your passkeys, oldest first, with when each was last used. Requires scope `read:profile`.',
  security: [{ bearerAuth: [] }],
  middleware: [requireScope('read:profile')],
  request: { query: z.strictObject({}) },
  responses: {
    200: jsonResponse(PasskeyListSchema, 'Your passkeys.'),
    400: problemAnswer('A query parameter was sent: `VALIDATION_FAILED`.'),
    ...signedInOnly,
  },
})

const rename = createRoute({
  method: 'patch',
  path: '/users/me/passkeys/{passkeyId}',
  operationId: 'passkeys.rename',
  tags: ['Sign-in'],
  summary: 'Rename a passkey',
  description: 'Renames one of your passkeys. Requires scope `write:profile`.',
  security: [{ bearerAuth: [] }],
  middleware: [requireScope('write:profile')],
  request: { query: z.strictObject({}), params: PasskeyIdParams, body: jsonBody(RenamePasskeyBodySchema) },
  responses: {
    200: jsonResponse(PasskeySchema, 'Renamed.'),
    400: problemAnswer('Invalid input: `VALIDATION_FAILED`, `MALFORMED_JSON`.'),
    ...signedInOnly,
    404: problemAnswer('No passkey of yours has this id: `NOT_FOUND`.'),
  },
})

const remove = createRoute({
  method: 'delete',
  path: '/users/me/passkeys/{passkeyId}',
  operationId: 'passkeys.remove',
  tags: ['Sign-in'],
  summary: 'Remove a passkey',
  description:
    'Removes one of your passkeys: it signs in no more, and every other session of yours ends. Requires scope `write:profile`.',
  security: [{ bearerAuth: [] }],
  middleware: [requireScope('write:profile')],
  request: { query: z.strictObject({}), params: PasskeyIdParams },
  responses: {
    200: jsonResponse(z.object({ sessionsEnded: z.int() }), 'Removed.'),
    400: problemAnswer('A query parameter was sent: `VALIDATION_FAILED`.'),
    ...signedInOnly,
    404: problemAnswer('No passkey of yours has this id: `NOT_FOUND`.'),
  },
})

/**
 * Challenges an address may ask for in a minute without being signed in (passkey sign-ins, and
 * passkeys started with a link or an invitation, together): each is a row kept for 5 minutes.
 */
export const SIGN_IN_CHALLENGES_PER_MINUTE = 60

/**
 * A limiter of those challenges per address, one per app (so test servers in one process count
 * apart). Only a challenge handed out counts: a refused request (a wrong code, a bad body) keeps no
 * row, and wrong codes are counted as failed authentications instead.
 */
const challengesPerAddress = () =>
  rateLimiter<AppEnv>({
    windowMs: 60_000,
    limit: SIGN_IN_CHALLENGES_PER_MINUTE,
    skipFailedRequests: true,
    standardHeaders: 'draft-6',
    keyGenerator: (c) => c.get('clientAddress') ?? '',
    handler: (c) =>
      problem(c, 429, 'RATE_LIMITED', {
        detail: 'Too many passkeys started from this address; wait and try again.',
        headers: { 'retry-after': '60' },
      }),
  })

const signInOptions = createRoute({
  method: 'post',
  path: '/sessions/passkey/options',
  operationId: 'sessions.passkeyOptions',
  tags: ['Sign-in'],
  summary: 'Start signing in with a passkey',
  description:
    'Options for `navigator.credentials.get()`: any passkey of this server’s RP ID may answer (no email is asked). The challenge works once, for 5 minutes. An address may start 60 a minute.',
  security: [{}],
  request: { query: z.strictObject({}) },
  responses: {
    200: jsonResponse(WebAuthnOptionsSchema, 'The options, to hand to the browser.'),
    400: problemAnswer('A query parameter was sent: `VALIDATION_FAILED`.'),
    403: problemAnswer('Posted by another site’s page: `CROSS_SITE_REFUSED`.'),
    429: problemAnswer(
      'More than 60 started from this address in a minute: `RATE_LIMITED`, with `Retry-After`.',
    ),
  },
})

const signIn = createRoute({
  method: 'post',
  path: '/sessions/passkey',
  operationId: 'sessions.createWithPasskey',
  tags: ['Sign-in'],
  summary: 'Sign in with a passkey',
  description:
    'Signs in with the passkey that answered the options of `POST /sessions/passkey/options`, and sets the session cookie as `POST /sessions` does. A passkey is both factors: no password or code is asked. Each challenge works once, and the passkey’s signature counter must move forward: a replayed answer is refused.',
  security: [{}],
  request: { query: z.strictObject({}), body: jsonBody(PasskeySignInBodySchema) },
  responses: {
    201: jsonResponse(SignedInSchema, 'You are signed in; the cookie is set.'),
    400: problemAnswer(
      'Invalid input (`VALIDATION_FAILED`, `MALFORMED_JSON`), no WebAuthn response (`WEBAUTHN_RESPONSE_INVALID`), or a challenge unknown, used already (a replay) or expired (`WEBAUTHN_CHALLENGE_INVALID`).',
    ),
    401: problemAnswer(
      'The passkey is not one of this server (`PASSKEY_UNKNOWN`), or its answer does not verify: a wrong signature, origin or RP ID, or a counter that did not move forward (`PASSKEY_REFUSED`).',
    ),
    403: problemAnswer('Posted by another site’s page: `CROSS_SITE_REFUSED`.'),
  },
})

const redeemOptionsAnswers = {
  200: jsonResponse(WebAuthnOptionsSchema, 'The options, to hand to the browser.'),
  400: problemAnswer('Invalid input: `VALIDATION_FAILED`, `MALFORMED_JSON`.'),
  403: problemAnswer('Posted by another site’s page: `CROSS_SITE_REFUSED`.'),
}

const linkPasskeyOptions = createRoute({
  method: 'post',
  path: '/sign-in-links/passkey/options',
  operationId: 'signInLinks.passkeyOptions',
  tags: ['Sign-in'],
  summary: 'Start making a passkey with a link',
  description:
    'Options for `navigator.credentials.create()` for the user of a setup or reset link, who then redeems the link with the passkey in place of a password (`POST /sign-in-links/redeem` with `passkey`). The challenge answers only that link’s redeem, once, for 5 minutes; the link stays unused until then. An address may start 60 passkeys a minute (sign-ins included).',
  security: [{}],
  request: { query: z.strictObject({}), body: jsonBody(RedeemPasskeyOptionsBodySchema) },
  responses: {
    ...redeemOptionsAnswers,
    404: problemAnswer('No link has this code: `NOT_FOUND`.'),
    410: problemAnswer('The link was used (`LINK_USED`) or has expired (`LINK_EXPIRED`).'),
    429: problemAnswer(
      'More than 60 passkeys started from this address in a minute, or a wrong code from an address with too many failures lately: `RATE_LIMITED`, with `Retry-After`.',
    ),
  },
})

const invitationPasskeyOptions = createRoute({
  method: 'post',
  path: '/invitations/passkey/options',
  operationId: 'invitations.passkeyOptions',
  tags: ['Households'],
  summary: 'Start signing up with a passkey at an invitation',
  description:
    'Options for `navigator.credentials.create()` for the person an invitation will make, who then redeems it with the passkey in place of a password (`POST /invitations/redeem` with `passkey`). The person’s id is chosen now and bound to the challenge, which answers only that invitation’s redeem, once, for 5 minutes; the invitation stays unused until then. An address may start 60 passkeys a minute (sign-ins included).',
  security: [{}],
  request: { query: z.strictObject({}), body: jsonBody(RedeemPasskeyOptionsBodySchema) },
  responses: {
    ...redeemOptionsAnswers,
    404: problemAnswer('No invitation has this code: `NOT_FOUND`.'),
    410: problemAnswer(
      'The code was used (`INVITATION_USED`), revoked (`INVITATION_REVOKED`) or expired (`INVITATION_EXPIRED`).',
    ),
    429: problemAnswer(
      'More than 60 passkeys started from this address in a minute, or a wrong or spent code from an address with too many failures lately: `RATE_LIMITED`, with `Retry-After`.',
    ),
  },
})

/** What the passkey routes need from the app. */
export interface PasskeyRouteOptions {
  store: Store
  settings: SessionSettings
  authFailures: AuthFailures
  corsOrigins: '*' | readonly string[]
}

/** Passkeys (WebAuthn): adding, naming and removing yours, and signing in with one; docs/api/sign-in.md. */
export function passkeyRoutes({ store, settings, authFailures, corsOrigins }: PasskeyRouteOptions) {
  const app = new OpenAPIHono<AppEnv>()
  const challenges = challengesPerAddress()
  app.use('/sessions/passkey/options', challenges)
  app.use('/sign-in-links/passkey/options', challenges)
  app.use('/invitations/passkey/options', challenges)

  app.openapi(registrationOptions, async (c) => {
    await refuseBodyFields(c)
    const { userId } = c.get('caller')
    const { email, name } = await runQuery(store.db, operations.profile.get, {}, actorContext(c.var))
    const options = await passkeyRegistrationOptions(
      c,
      settings,
      { id: userId, name: email ?? name ?? userId, displayName: name ?? email ?? userId },
      await passkeyCredentialIdsOf(store.db, userId),
    )
    await runMutation(
      store.db,
      operations.passkeys.registrationOptions,
      { challenge: options.challenge, expiresAt: new Date(Date.now() + CHALLENGE_MS).toISOString() },
      actorContext(c.var),
    )
    return c.json(options as unknown as Record<string, unknown>, 200)
  })

  app.openapi(add, async (c) => {
    const body = c.req.valid('json' as never) as z.output<typeof AddPasskeyBodySchema>
    const { userId } = c.get('caller')
    const challenge = await takeAnsweredChallenge(store, body.response, 'register', userId)
    const passkey = await verifiedPasskey(c, settings, body.response, challenge, body.name)
    const { result } = await runMutation(store.db, operations.passkeys.add, passkey, actorContext(c.var))
    return c.json(result, 201)
  })

  app.openapi(list, async (c) => {
    const items = await runQuery(store.db, operations.passkeys.list, {}, actorContext(c.var))
    return c.json({ items }, 200)
  })

  app.openapi(rename, async (c) => {
    const { passkeyId } = c.req.valid('param' as never) as { passkeyId: string }
    const { name } = c.req.valid('json' as never) as z.output<typeof RenamePasskeyBodySchema>
    const { result } = await runMutation(
      store.db,
      operations.passkeys.rename,
      { id: passkeyId, name },
      actorContext(c.var),
    )
    return c.json(result, 200)
  })

  app.openapi(remove, async (c) => {
    const { passkeyId } = c.req.valid('param' as never) as { passkeyId: string }
    const caller = c.get('caller')
    const { result } = await runMutation(
      store.db,
      operations.passkeys.remove,
      { id: passkeyId, keepSessionId: caller.kind === 'session' ? caller.keyId : null },
      actorContext(c.var),
    )
    return c.json(result, 200)
  })

  app.openapi(signInOptions, async (c) => {
    await refuseBodyFields(c)
    refuseCrossSite(c, corsOrigins)
    const { rpID } = relyingParty(c, settings)
    const { generateAuthenticationOptions } = await webauthnLibrary()
    const options = await generateAuthenticationOptions({
      rpID,
      userVerification: 'preferred',
      timeout: CHALLENGE_MS,
    })
    // No one is known yet: a challenge any passkey may answer, kept outside the registry's operations.
    await insertChallenge(store.db, {
      challenge: options.challenge,
      purpose: 'sign_in',
      userId: null,
      expiresAt: new Date(Date.now() + CHALLENGE_MS),
      now: new Date(),
    })
    return c.json(options as unknown as Record<string, unknown>, 200)
  })

  app.openapi(signIn, async (c) => {
    const body = c.req.valid('json' as never) as z.output<typeof PasskeySignInBodySchema>
    refuseCrossSite(c, corsOrigins)
    const address = c.get('clientAddress')
    const verify = async () => {
      const challenge = await takeAnsweredChallenge(store, body.response, 'sign_in', null)
      const found = await passkeyByCredentialId(store.db, String(body.response.id ?? ''))
      if (!found) throw new EngineError(401, 'PASSKEY_UNKNOWN', 'This passkey is not one of this server’s.')
      const { origin, rpID } = relyingParty(c, settings)
      const { verifyAuthenticationResponse } = await webauthnLibrary()
      let verified: VerifiedAuthenticationResponse
      try {
        verified = await verifyAuthenticationResponse({
          response: body.response as unknown as AuthenticationResponseJSON,
          expectedChallenge: challenge,
          expectedOrigin: origin,
          expectedRPID: rpID,
          credential: {
            id: found.credentialId,
            publicKey: fromBase64Url(found.publicKey),
            counter: found.counter,
            transports: found.transports,
          },
          requireUserVerification: false,
        })
      } catch (error) {
        throw refusedPasskey(401, error)
      }
      if (!verified.verified) throw refusedPasskey(401, new Error('not verified'))
      const session = await startSession(c, store, settings, found.userId, body.deviceName, undefined, {
        passkeyId: found.id,
        fromCounter: found.counter,
        toCounter: verified.authenticationInfo.newCounter,
      })
      return { passkey: found, session }
    }
    // A wrong answer counts against its address as a wrong key does; the right one never waits.
    const { passkey, session } = await verify().catch(async (error) => {
      if (error instanceof EngineError && error.status < 500 && authFailures.failed(address, undefined)) {
        await authFailures.hold()
        throw new EngineError(429, 'RATE_LIMITED', 'Too many failed sign-ins; wait and try again.')
      }
      throw error
    })
    const { email } = await runQuery(
      store.db,
      operations.profile.get,
      {},
      { userId: passkey.userId, scopes: ['read:profile'], now: new Date() },
    )
    return c.json({ userId: passkey.userId, email, session: presentSession(session, session.id) }, 201)
  })
  app.openapi(linkPasskeyOptions, async (c) => {
    const body = c.req.valid('json' as never) as z.output<typeof RedeemPasskeyOptionsBodySchema>
    refuseCrossSite(c, corsOrigins)
    const codeHash = hashApiKey(body.code)
    const userId = await linkUserOrRefuse(c, store, authFailures, codeHash)
    const now = new Date()
    const user = await runQuery(
      store.db,
      operations.profile.get,
      {},
      { userId, scopes: ['read:profile'], now },
    )
    const label = user.email ?? body.email ?? user.name ?? body.name ?? 'Hearth'
    const options = await passkeyRegistrationOptions(
      c,
      settings,
      { id: userId, name: label, displayName: user.name ?? body.name ?? label },
      await passkeyCredentialIdsOf(store.db, userId),
    )
    await runMutation(
      store.db,
      operations.signInLinks.passkeyOptions,
      {
        codeHash,
        challenge: options.challenge,
        expiresAt: new Date(now.getTime() + CHALLENGE_MS).toISOString(),
      },
      { userId, scopes: [], now },
    )
    return c.json(options as unknown as Record<string, unknown>, 200)
  })

  app.openapi(invitationPasskeyOptions, async (c) => {
    const body = c.req.valid('json' as never) as z.output<typeof RedeemPasskeyOptionsBodySchema>
    refuseCrossSite(c, corsOrigins)
    // The person the redeem will make: their id, chosen now, is the passkey's user handle.
    const userId = newUlid()
    const label = body.email ?? body.name ?? 'Hearth'
    const options = await passkeyRegistrationOptions(c, settings, {
      id: userId,
      name: label,
      displayName: body.name ?? label,
    })
    const now = new Date()
    // A wrong or spent code (404, 410) counts against its address (limitFailedAuth).
    await runMutation(
      store.db,
      operations.invitations.passkeyOptions,
      {
        codeHash: hashApiKey(body.code),
        challenge: options.challenge,
        expiresAt: new Date(now.getTime() + CHALLENGE_MS).toISOString(),
      },
      { userId, scopes: [], now },
    )
    return c.json(options as unknown as Record<string, unknown>, 200)
  })
  return app
}
