import {
  newUlid,
  operations,
  runMutation,
  type Scope,
  type Session,
  type Store,
  sessionIdByTokenHash,
} from '@hearth/engine'
import type { Context } from 'hono'
import { hashApiKey } from './api-key-token.ts'
import { sessionCookieOf, setSessionCookie } from './session-cookie.ts'
import type { SessionSettings } from './session-settings.ts'
import { mintSessionToken } from './session-token.ts'

/** The arguments of a new session for this request's browser, and its token to set as the cookie. */
export function newSessionArgs(c: Context, settings: SessionSettings, deviceName: string | undefined) {
  const minted = mintSessionToken()
  const now = Date.now()
  return {
    token: minted.token,
    args: {
      id: newUlid(),
      tokenHash: minted.hash,
      prefix: minted.prefix,
      name: deviceName ?? 'Web browser',
      userAgent: c.req.header('user-agent')?.slice(0, 500) ?? null,
      clientAddress: (c.get('clientAddress' as never) as string | undefined) ?? null,
      expiresAt: new Date(now + settings.maxMs).toISOString(),
      idleSeconds: Math.max(1, Math.ceil(settings.idleMs / 1000)),
    },
  }
}

/**
 * Signs `userId` in on this browser: a new session (the one its cookie held, if any, revoked in
 * the same transaction, so every sign-in rotates the secret) and its cookie.
 */
export async function startSession(
  c: Context,
  store: Store,
  settings: SessionSettings,
  userId: string,
  deviceName: string | undefined,
  /** A key exchanged for this session: the session gets no scope the key lacks. */
  withinScopes?: readonly Scope[],
  /** A passkey that verified: its counter moves in the transaction that makes the session. */
  passkey?: { passkeyId: string; fromCounter: number; toCounter: number },
): Promise<Session> {
  const { token, args } = newSessionArgs(c, settings, deviceName)
  const previous = sessionCookieOf(c)
  const replaces = previous ? await sessionIdByTokenHash(store.db, hashApiKey(previous)) : null
  const session = { ...args, replaces, ...(withinScopes && { withinScopes: [...withinScopes] }) }
  const ctx = { userId, scopes: [], now: new Date() }
  const { result } = passkey
    ? await runMutation(store.db, operations.sessions.createWithPasskey, { ...passkey, session }, ctx)
    : await runMutation(store.db, operations.sessions.create, session, ctx)
  setSessionCookie(c, token, settings)
  return result
}
