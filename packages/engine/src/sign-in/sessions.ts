import type { Kysely, Transaction } from 'kysely'
import { z } from 'zod'
import type { Database } from '../database.ts'
import { notFound } from '../errors.ts'
import type { ApiKeyRow } from '../identity/tables.ts'
import type { ActorContext } from '../mutator/context.ts'
import { defineUserMutator, defineUserQuery } from '../mutator/define.ts'
import { sessionScopes } from './role-scopes.ts'
import {
  type CreateSessionArgs,
  CreateSessionArgsSchema,
  RevokeAllSessionsArgsSchema,
  SessionIdArgsSchema,
} from './schema.ts'

/** A signed-in browser or device as its person sees it; the token is never part of it. */
export interface Session {
  id: string
  /** A browser's session (its cookie), or an SDK device's credential (sign-in/devices.ts). */
  kind: 'session' | 'device'
  name: string
  userAgent: string | null
  clientAddress: string | null
  createdAt: string
  lastUsedAt: string | null
  /** When it ends however busy it is. */
  expiresAt: string
  /** When it ends unless it is used before. */
  idleExpiresAt: string
}

/** A session or device row as its person sees it; a device has no end but its idle one. */
export function toSession(row: ApiKeyRow): Session {
  const lastActive = row.last_used_at ?? row.created_at
  const idleExpiresAt = new Date(lastActive.getTime() + (row.idle_seconds ?? 0) * 1000).toISOString()
  const device = row.kind === 'device'
  return {
    id: row.id,
    kind: device ? 'device' : 'session',
    name: row.name,
    userAgent: row.user_agent,
    clientAddress: row.client_address,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    // A device's `expires_at` is its access token's, which it renews: the device itself lasts while used.
    expiresAt: device ? idleExpiresAt : (row.expires_at ?? row.created_at).toISOString(),
    idleExpiresAt,
  }
}

/**
 * Writes a session for the acting user with their roles' rights, and revokes the one it replaces
 * (the browser's previous session, so a sign-in always rotates the cookie's secret).
 */
export async function insertSession(
  tx: Transaction<Database>,
  args: CreateSessionArgs,
  ctx: ActorContext,
): Promise<Session> {
  if (args.replaces) await revokeSessions(tx, ctx, { only: args.replaces })
  const rights = await sessionScopes(tx, ctx.userId)
  const scopes = args.withinScopes ? rights.filter((s) => args.withinScopes!.includes(s)) : rights
  const row = await tx
    .insertInto('api_keys')
    .values({
      id: args.id,
      user_id: ctx.userId,
      kind: 'session',
      name: args.name,
      prefix: args.prefix,
      key_hash: args.tokenHash,
      scopes,
      created_at: ctx.now,
      last_used_at: ctx.now,
      revoked_at: null,
      expires_at: new Date(args.expiresAt),
      idle_seconds: args.idleSeconds,
      user_agent: args.userAgent ?? null,
      client_address: args.clientAddress ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
  return toSession(row)
}

/** Revokes the acting user's live sessions and devices: `only` one, or all but `except`; answers how many ended. */
export async function revokeSessions(
  tx: Transaction<Database>,
  ctx: ActorContext,
  which: { only?: string; except?: string | null } = {},
): Promise<number> {
  let update = tx
    .updateTable('api_keys')
    .set({ revoked_at: ctx.now })
    .where('user_id', '=', ctx.userId)
    .where('kind', 'in', ['session', 'device'])
    .where('revoked_at', 'is', null)
  if (which.only !== undefined) update = update.where('id', '=', which.only)
  if (which.except) update = update.where('id', '!=', which.except)
  const result = await update.executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/** Signs the acting user in on one more browser or device; the server verified who they are. */
export const createSession = defineUserMutator({
  audience: 'server',
  description: 'Signs in: a session for a browser or device, with the rights of your roles.',
  scope: null,
  args: CreateSessionArgsSchema,
  run: (tx, args, ctx) => insertSession(tx, args, ctx),
})

/**
 * The caller's sessions and devices that can still be used, most recently used first; a device
 * whose access token lapsed is listed, since it can still refresh.
 */
export const listSessions = defineUserQuery({
  audience: 'server',
  description: 'Your signed-in browsers and devices, most recently used first.',
  scope: 'read:profile',
  args: z.strictObject({}),
  async run(db, _args, ctx) {
    const rows = await db
      .selectFrom('api_keys')
      .selectAll()
      .where('user_id', '=', ctx.userId)
      .where('revoked_at', 'is', null)
      .where((eb) =>
        eb.or([
          eb.and([eb('kind', '=', 'session'), eb('expires_at', '>', ctx.now)]),
          eb('kind', '=', 'device'),
        ]),
      )
      .orderBy('last_used_at', 'desc')
      .orderBy('id', 'desc')
      .execute()
    return rows.map(toSession).filter((s) => Date.parse(s.idleExpiresAt) > ctx.now.getTime())
  },
})

/** Signs one of the caller's sessions or devices out; one already ended is not found. */
export const revokeSession = defineUserMutator({
  audience: 'server',
  description: 'Signs one of your browsers or devices out.',
  scope: 'write:profile',
  args: SessionIdArgsSchema,
  async run(tx, args, ctx) {
    const ended = await revokeSessions(tx, ctx, { only: args.id })
    if (ended === 0) throw notFound('Session', args.id)
    return { id: args.id }
  },
})

/** Signs every session of the caller out, but the one named to keep: "sign out everywhere". */
export const revokeAllSessions = defineUserMutator({
  audience: 'server',
  description: 'Signs out everywhere: every session of yours ends, but the one you keep.',
  scope: 'write:profile',
  args: RevokeAllSessionsArgsSchema,
  async run(tx, args, ctx) {
    return { revoked: await revokeSessions(tx, ctx, { except: args.exceptId ?? null }) }
  },
})

/** The session a token's hash names (a browser's current cookie), or null. */
export async function sessionIdByTokenHash(db: Kysely<Database>, tokenHash: string): Promise<string | null> {
  const row = await db
    .selectFrom('api_keys')
    .select('id')
    .where('key_hash', '=', tokenHash)
    .where('kind', '=', 'session')
    .executeTakeFirst()
  return row?.id ?? null
}
