import { OidcIdentitySchema, OidcProviderSchema, ProblemSchema } from '@hearth/contracts'
import {
  EngineError,
  findActiveKey,
  findSignInUser,
  oidcIdentityUser,
  operations,
  runMutation,
  runQuery,
  type Store,
} from '@hearth/engine'
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { hashApiKey } from '../auth/api-key-token.ts'
import { OidcFailure, type OidcFlow, type VerifiedIdentity } from '../auth/oidc-flow.ts'
import { sessionCookieOf } from '../auth/session-cookie.ts'
import type { SessionSettings } from '../auth/session-settings.ts'
import { startSession } from '../auth/start-session.ts'
import { type AppEnv, actorContext } from '../http/env.ts'
import { jsonResponse } from '../http/route.ts'
import { requireScope } from '../http/scope.ts'
import { refuseBodyFields } from './sign-in-links.ts'

const problemContent = { 'application/problem+json': { schema: ProblemSchema } }
const problemAnswer = (description: string) => ({ description, content: problemContent })

/** What the OpenID Connect routes need from the app; `flow` is absent when no provider is configured. */
export interface OidcRouteOptions {
  store: Store
  settings: SessionSettings
  flow: OidcFlow | undefined
  /**
   * A first sign-in links to the person with the provider's verified email only when their Hearth
   * email is verified too: set when the server sends mail, so people can verify theirs.
   */
  linkOnlyVerifiedEmail?: boolean
}

const provider = createRoute({
  method: 'get',
  path: '/oidc',
  operationId: 'oidc.provider',
  tags: ['Sign-in'],
  summary: 'The OpenID Connect provider',
  description:
    'Whether this server signs people in with an OpenID Connect provider, its name, and whether it is required. Public.',
  security: [{}],
  request: { query: z.strictObject({}) },
  responses: {
    200: jsonResponse(OidcProviderSchema, 'The provider, or `enabled: false`.'),
    400: problemAnswer('A query parameter was sent: `VALIDATION_FAILED`.'),
  },
})

const startLink = createRoute({
  method: 'post',
  path: '/users/me/oidc-identities',
  operationId: 'oidcIdentities.link',
  tags: ['Sign-in'],
  summary: 'Link your account at the provider',
  description:
    'Starts linking your account at the OpenID Connect provider to your Hearth account, from a signed-in browser: answers the provider’s URL to send the browser to; it comes back to `/oidc/callback`, which links the identity and sends the browser to `/app/devices?oidcLinked=1`. Requires scope `write:profile` and the session cookie.',
  security: [{ bearerAuth: [] }],
  middleware: [requireScope('write:profile')],
  request: { query: z.strictObject({}) },
  responses: {
    200: jsonResponse(z.object({ url: z.string() }), 'Where to send the browser.'),
    400: problemAnswer('Not a browser signed in by its session cookie: `VALIDATION_FAILED`.'),
    401: problemAnswer('Not signed in: `UNAUTHENTICATED`.'),
    403: problemAnswer(
      'The key lacks the scope (`INSUFFICIENT_SCOPE`), or another site’s page (`CROSS_SITE_REFUSED`).',
    ),
    404: problemAnswer('No provider is configured: `OIDC_NOT_CONFIGURED`.'),
  },
})

const listIdentities = createRoute({
  method: 'get',
  path: '/users/me/oidc-identities',
  operationId: 'oidcIdentities.list',
  tags: ['Sign-in'],
  summary: 'Your linked accounts',
  description: 'Your accounts at OpenID Connect providers that sign you in. Requires scope `read:profile`.',
  security: [{ bearerAuth: [] }],
  middleware: [requireScope('read:profile')],
  request: { query: z.strictObject({}) },
  responses: {
    200: jsonResponse(z.object({ items: z.array(OidcIdentitySchema) }), 'Your linked accounts.'),
    400: problemAnswer('A query parameter was sent: `VALIDATION_FAILED`.'),
    401: problemAnswer('Not signed in: `UNAUTHENTICATED`.'),
    403: problemAnswer('The key lacks the scope: `INSUFFICIENT_SCOPE`.'),
  },
})

const unlink = createRoute({
  method: 'delete',
  path: '/users/me/oidc-identities',
  operationId: 'oidcIdentities.unlink',
  tags: ['Sign-in'],
  summary: 'Unlink your account at the provider',
  description:
    'Your account at the configured provider no longer signs you in. Requires scope `write:profile`.',
  security: [{ bearerAuth: [] }],
  middleware: [requireScope('write:profile')],
  request: { query: z.strictObject({}) },
  responses: {
    204: { description: 'Unlinked.' },
    400: problemAnswer('A query parameter was sent: `VALIDATION_FAILED`.'),
    401: problemAnswer('Not signed in: `UNAUTHENTICATED`.'),
    403: problemAnswer(
      'The key lacks the scope (`INSUFFICIENT_SCOPE`), or another site’s page (`CROSS_SITE_REFUSED`).',
    ),
    404: problemAnswer(
      'No provider is configured (`OIDC_NOT_CONFIGURED`), or none of your accounts is linked (`NOT_FOUND`).',
    ),
  },
})

/** Signing in with an OpenID Connect provider, and linking a person's identity there. */
export function oidcRoutes({ store, settings, flow, linkOnlyVerifiedEmail = false }: OidcRouteOptions) {
  const app = new OpenAPIHono<AppEnv>()
  const configured = (): OidcFlow => {
    if (!flow)
      throw new EngineError(404, 'OIDC_NOT_CONFIGURED', 'This server has no OpenID Connect provider.')
    return flow
  }
  const unavailable = (error: unknown): never => {
    if (error instanceof OidcFailure) throw new EngineError(503, error.code, error.message)
    throw error
  }

  app.openapi(provider, (c) =>
    c.json(
      flow
        ? { enabled: true, name: flow.settings.name, required: flow.settings.required }
        : { enabled: false, name: null, required: false },
      200,
    ),
  )

  // The two legs of the browser's round trip through the provider are pages, not API calls: they
  // answer redirects, and are described in docs/api/sign-in.md rather than in the OpenAPI document.
  app.get('/oidc/sign-in', async (c) => {
    const url = await configured().start(c, 'sign-in').catch(unavailable)
    return c.redirect(url, 302)
  })

  app.openapi(startLink, async (c) => {
    await refuseBodyFields(c)
    const caller = c.get('caller')
    if (caller.kind !== 'session' || !caller.viaCookie) {
      throw new EngineError(
        400,
        'VALIDATION_FAILED',
        'Link your account from the app, in a signed-in browser.',
      )
    }
    const url = await configured().start(c, 'link').catch(unavailable)
    return c.json({ url }, 200)
  })

  app.openapi(listIdentities, async (c) => {
    const items = await runQuery(store.db, operations.oidcIdentities.list, {}, actorContext(c.var))
    return c.json({ items }, 200)
  })

  app.openapi(unlink, async (c) => {
    const issuer = await configured().issuer().catch(unavailable)
    await runMutation(store.db, operations.oidcIdentities.unlink, { issuer }, actorContext(c.var))
    return c.body(null, 204)
  })

  app.get('/oidc/callback', async (c) => {
    const current = configured()
    const back = (query: string) => c.redirect(`/app/${query}`, 302)
    const failed = (code: string) => back(`?oidcError=${code}`)
    if (c.req.query('error')) return failed('OIDC_DENIED')
    let finished: Awaited<ReturnType<OidcFlow['finish']>>
    try {
      finished = await current.finish(c)
    } catch (error) {
      if (error instanceof OidcFailure) {
        c.get('logger').warn({ code: error.code, err: error.message }, 'OpenID Connect sign-in failed')
        return failed(error.code)
      }
      throw error
    }
    const { purpose, identity } = finished
    if (purpose === 'link') {
      const userId = await sessionUser(c, store)
      if (!userId) return failed('OIDC_NOT_SIGNED_IN')
      try {
        await link(store, userId, identity, true)
      } catch (error) {
        if (error instanceof EngineError) return failed(error.code)
        throw error
      }
      return back('devices?oidcLinked=1')
    }
    const userId = await signInUser(store, identity, linkOnlyVerifiedEmail)
    if (!userId) return failed('OIDC_NO_ACCOUNT')
    await startSession(c, store, settings, userId, 'Web browser')
    return back('?signedIn=oidc')
  })
  return app
}

/**
 * The person an identity signs in: the one it is linked to, or at its first sign-in the person
 * whose email the provider verified (and, when the server sends mail, who verified that email
 * with Hearth too), to whom it is linked now. Null for anyone else: an account at
 * the provider does not make a Hearth account (an owner invites people).
 */
async function signInUser(
  store: Store,
  identity: VerifiedIdentity,
  linkOnlyVerifiedEmail: boolean,
): Promise<string | null> {
  const linked = await oidcIdentityUser(store.db, identity.issuer, identity.subject, new Date())
  if (linked) return linked
  if (!identity.verifiedEmail) return null
  const person = await findSignInUser(store.db, identity.verifiedEmail)
  // An email nobody proved is theirs (a typo, or someone else's address set on purpose) links nothing.
  if (!person || (linkOnlyVerifiedEmail && !person.emailVerified)) return null
  try {
    await link(store, person.userId, identity, false)
  } catch (error) {
    // The person already has another identity at this provider: this one is not theirs.
    if (error instanceof EngineError) return null
    throw error
  }
  return person.userId
}

function link(store: Store, userId: string, identity: VerifiedIdentity, replace: boolean) {
  return runMutation(
    store.db,
    operations.oidcIdentities.link,
    { issuer: identity.issuer, subject: identity.subject, email: identity.email, replace },
    // The provider vouched for the person: the server links on their behalf, as it signs them in.
    { userId, scopes: ['write:profile'], now: new Date() },
  )
}

/** The person this browser's session cookie signs in, for a link coming back from the provider. */
async function sessionUser(c: Context, store: Store): Promise<string | null> {
  const token = sessionCookieOf(c)
  if (!token) return null
  const key = await findActiveKey(store.db, hashApiKey(token), new Date())
  return key?.userId ?? null
}
