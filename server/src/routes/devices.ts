import {
  CreateDeviceBodySchema,
  DeviceCredentialSchema,
  ProblemSchema,
  RefreshDeviceBodySchema,
} from '@hearth/contracts'
import {
  deviceRefreshUser,
  EngineError,
  findActiveKey,
  newUlid,
  operations,
  runMutation,
  type Scope,
} from '@hearth/engine'
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { bearerToken, hashApiKey } from '../auth/api-key-token.ts'
import { checkPassword, type PasswordCheck } from '../auth/password-sign-in.ts'
import { fromSameOrigin } from '../auth/same-origin.ts'
import { sessionCookieOf } from '../auth/session-cookie.ts'
import type { SessionSettings } from '../auth/session-settings.ts'
import { mintDeviceTokens } from '../auth/session-token.ts'
import type { AppEnv } from '../http/env.ts'
import { jsonBody, jsonResponse } from '../http/route.ts'
import { presentSession, refuseCrossSite } from './sessions.ts'

const problemContent = { 'application/problem+json': { schema: ProblemSchema } }
const problemAnswer = (description: string) => ({ description, content: problemContent })

/** What the device routes need from the app. */
export interface DeviceRouteOptions extends PasswordCheck {
  settings: SessionSettings
  corsOrigins: '*' | readonly string[]
}

const create = createRoute({
  method: 'post',
  path: '/devices',
  operationId: 'devices.create',
  tags: ['Sign-in'],
  summary: 'Sign a device in',
  description:
    'Signs an SDK device in: an access token that lasts `HEARTH_DEVICE_ACCESS_MINUTES` (15) and a refresh ' +
    'token bound to the device, which it trades at `POST /devices/refresh` for the next pair. Sign in with an ' +
    'email and password, an API key (exchanged, not kept), or the request’s own session (its cookie or ' +
    'bearer token). The device carries the rights of your roles, as narrow as the key or session exchanged; ' +
    'it is listed with your sessions (`GET /sessions`, `kind: device`) and revoked as they are.',
  security: [{}],
  request: { query: z.strictObject({}), body: jsonBody(CreateDeviceBodySchema) },
  responses: {
    201: jsonResponse(DeviceCredentialSchema, 'The device is signed in; the tokens are shown this once.'),
    400: problemAnswer('Invalid input: `VALIDATION_FAILED`, `MALFORMED_JSON`.'),
    401: problemAnswer(
      'The email and password do not match, or the key or session is unknown: `UNAUTHENTICATED`.',
    ),
    403: problemAnswer('Posted by another site’s page: `CROSS_SITE_REFUSED`.'),
    429: problemAnswer(
      'Too many wrong passwords for this account or from this address lately: `RATE_LIMITED`.',
    ),
  },
})

const refresh = createRoute({
  method: 'post',
  path: '/devices/refresh',
  operationId: 'devices.refresh',
  tags: ['Sign-in'],
  summary: 'Refresh a device’s tokens',
  description:
    'Trades a device’s refresh token for a new access token and the next refresh token. Each refresh token ' +
    'works once: presenting a used one again revokes the device (`REFRESH_TOKEN_REUSED`), since two ' +
    'holders of one secret means it leaked. A device unused for `HEARTH_DEVICE_IDLE_DAYS` (30), or revoked, ' +
    'must sign in again.',
  security: [{}],
  request: { query: z.strictObject({}), body: jsonBody(RefreshDeviceBodySchema) },
  responses: {
    200: jsonResponse(DeviceCredentialSchema, 'The next tokens; the ones sent no longer work.'),
    400: problemAnswer('Invalid input: `VALIDATION_FAILED`, `MALFORMED_JSON`.'),
    401: problemAnswer(
      'The refresh token is unknown, or its device was revoked or idle too long (`UNAUTHENTICATED`), or it was used before and the device is now revoked (`REFRESH_TOKEN_REUSED`).',
    ),
  },
})

/** Signing devices in, and refreshing their tokens. */
export function deviceRoutes(options: DeviceRouteOptions) {
  const { store, settings, authFailures, corsOrigins } = options
  const app = new OpenAPIHono<AppEnv>()

  app.openapi(create, async (c) => {
    const body = c.req.valid('json' as never) as z.output<typeof CreateDeviceBodySchema>
    const address = c.get('clientAddress')
    let userId: string
    let withinScopes: Scope[] | undefined
    if ('password' in body) {
      refuseCrossSite(c, corsOrigins)
      const user = await checkPassword(c, options, body)
      if (user instanceof Response) return user as never
      userId = user.userId
    } else {
      const token = 'apiKey' in body ? body.apiKey : requestCredential(c, corsOrigins)
      const key = await authFailures.attempt(address, token, async () => {
        const found = await findActiveKey(store.db, hashApiKey(token), new Date())
        if (!found)
          throw new EngineError(401, 'UNAUTHENTICATED', 'The key or session is unknown or has ended.')
        return found
      })
      userId = key.userId
      withinScopes = key.scopes
    }
    const tokens = mintDeviceTokens()
    const now = Date.now()
    const { result } = await runMutation(
      store.db,
      operations.devices.create,
      {
        id: newUlid(),
        name: body.name,
        accessTokenHash: tokens.access.hash,
        accessPrefix: tokens.access.prefix,
        accessExpiresAt: new Date(now + settings.deviceAccessMs).toISOString(),
        refreshTokenHash: tokens.refresh.hash,
        idleSeconds: Math.max(1, Math.ceil(settings.deviceIdleMs / 1000)),
        userAgent: c.req.header('user-agent')?.slice(0, 500) ?? null,
        clientAddress: address ?? null,
        ...(withinScopes && { withinScopes }),
      },
      { userId, scopes: [], now: new Date(now) },
    )
    return c.json(
      {
        userId,
        device: presentSession(result, result.id),
        accessToken: tokens.access.token,
        accessTokenExpiresAt: new Date(now + settings.deviceAccessMs).toISOString(),
        refreshToken: tokens.refresh.token,
      },
      201,
    )
  })

  app.openapi(refresh, async (c) => {
    const { refreshToken } = c.req.valid('json' as never) as z.output<typeof RefreshDeviceBodySchema>
    const refreshTokenHash = hashApiKey(refreshToken)
    // A wrong token counts against its address as a wrong key does; a right one is never refused.
    const userId = await authFailures.attempt(c.get('clientAddress'), refreshToken, async () => {
      const found = await deviceRefreshUser(store.db, refreshTokenHash)
      if (!found) throw new EngineError(401, 'UNAUTHENTICATED', 'The refresh token is unknown.')
      return found
    })
    const tokens = mintDeviceTokens()
    const now = Date.now()
    const accessTokenExpiresAt = new Date(now + settings.deviceAccessMs).toISOString()
    const { result } = await runMutation(
      store.db,
      operations.devices.refresh,
      {
        refreshTokenHash,
        nextRefreshTokenHash: tokens.refresh.hash,
        accessTokenHash: tokens.access.hash,
        accessPrefix: tokens.access.prefix,
        accessExpiresAt: accessTokenExpiresAt,
        clientAddress: c.get('clientAddress') ?? null,
      },
      { userId, scopes: [], now: new Date(now) },
    )
    if (result.outcome === 'reused') {
      throw new EngineError(
        401,
        'REFRESH_TOKEN_REUSED',
        'This refresh token was used before, so it may have leaked: the device is signed out; sign it in again.',
      )
    }
    if (result.outcome === 'ended') {
      throw new EngineError(
        401,
        'UNAUTHENTICATED',
        'This device was signed out or unused too long; sign it in again.',
      )
    }
    return c.json(
      {
        userId,
        device: presentSession(result.device, result.device.id),
        accessToken: tokens.access.token,
        accessTokenExpiresAt,
        refreshToken: tokens.refresh.token,
      },
      200,
    )
  })
  return app
}

/**
 * The credential the request itself carries, to exchange for a device: a bearer token, or the
 * session cookie of a page of this server (another site's page cannot mint a device for you).
 */
function requestCredential(c: Context, corsOrigins: '*' | readonly string[]): string {
  const bearer = bearerToken(c.req.header('authorization'))
  if (bearer) return bearer
  const cookie = sessionCookieOf(c)
  if (cookie === undefined) {
    throw new EngineError(401, 'UNAUTHENTICATED', 'Send an email and password, an API key, or sign in first.')
  }
  if (!fromSameOrigin((name) => c.req.header(name), corsOrigins)) {
    throw new EngineError(403, 'CROSS_SITE_REFUSED', 'Sign a device in from a page of this server.')
  }
  return cookie
}
