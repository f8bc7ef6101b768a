import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../database.ts'
import { defineUserMutator } from '../mutator/define.ts'
import { sessionScopes } from './role-scopes.ts'
import { CreateDeviceArgsSchema, RefreshDeviceArgsSchema } from './schema.ts'
import { type Session, toSession } from './sessions.ts'

/** What a refresh did: the device with its new access token in place, or why it refused. */
export type DeviceRefresh =
  | { outcome: 'refreshed'; device: Session }
  /** The token was used before: the device is revoked now (two holders of one secret). */
  | { outcome: 'reused' }
  /** The device was revoked, or went unused past its idle end. */
  | { outcome: 'ended' }

/** Records a refresh token a device holds; only its hash. */
async function insertRefreshToken(tx: Transaction<Database>, keyId: string, hash: string, now: Date) {
  await tx
    .insertInto('device_refresh_tokens')
    .values({ token_hash: hash, key_id: keyId, created_at: now, used_at: null })
    .execute()
}

/**
 * Signs the acting user in on an SDK device: a device with the rights of their roles (as narrow
 * as `withinScopes` when a key or a session was exchanged), its first access token and refresh token.
 */
export const createDevice = defineUserMutator({
  audience: 'server',
  description: 'Signs in a device: an access token it refreshes, with the rights of your roles.',
  scope: null,
  args: CreateDeviceArgsSchema,
  async run(tx, args, ctx): Promise<Session> {
    const rights = await sessionScopes(tx, ctx.userId)
    const scopes = args.withinScopes ? rights.filter((s) => args.withinScopes!.includes(s)) : rights
    const row = await tx
      .insertInto('api_keys')
      .values({
        id: args.id,
        user_id: ctx.userId,
        kind: 'device',
        name: args.name,
        prefix: args.accessPrefix,
        key_hash: args.accessTokenHash,
        scopes,
        created_at: ctx.now,
        last_used_at: ctx.now,
        revoked_at: null,
        expires_at: new Date(args.accessExpiresAt),
        idle_seconds: args.idleSeconds,
        user_agent: args.userAgent ?? null,
        client_address: args.clientAddress ?? null,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    await insertRefreshToken(tx, row.id, args.refreshTokenHash, ctx.now)
    return toSession(row)
  },
})

/**
 * Trades a device's refresh token for the next one and a new access token, once: the token is used
 * up, and a used token presented again revokes the device (whoever holds the stolen copy and
 * whoever holds the real one both lose it, and its person signs the device in again).
 */
export const refreshDevice = defineUserMutator({
  audience: 'server',
  description: 'Renews a device’s access token with its refresh token, which works once.',
  scope: null,
  args: RefreshDeviceArgsSchema,
  async run(tx, args, ctx): Promise<DeviceRefresh> {
    const held = await tx
      .selectFrom('device_refresh_tokens as t')
      .innerJoin('api_keys as k', 'k.id', 't.key_id')
      .select(['t.used_at', 'k.id', 'k.revoked_at', 'k.last_used_at', 'k.created_at', 'k.idle_seconds'])
      .where('t.token_hash', '=', args.refreshTokenHash)
      .where('k.user_id', '=', ctx.userId)
      .where('k.kind', '=', 'device')
      .forUpdate()
      .executeTakeFirst()
    if (!held || held.revoked_at) return { outcome: 'ended' }
    if (held.used_at) {
      await tx.updateTable('api_keys').set({ revoked_at: ctx.now }).where('id', '=', held.id).execute()
      return { outcome: 'reused' }
    }
    const lastActive = (held.last_used_at ?? held.created_at).getTime()
    if (lastActive + (held.idle_seconds ?? 0) * 1000 <= ctx.now.getTime()) return { outcome: 'ended' }
    await tx
      .updateTable('device_refresh_tokens')
      .set({ used_at: ctx.now })
      .where('token_hash', '=', args.refreshTokenHash)
      .execute()
    await insertRefreshToken(tx, held.id, args.nextRefreshTokenHash, ctx.now)
    const row = await tx
      .updateTable('api_keys')
      .set({
        key_hash: args.accessTokenHash,
        prefix: args.accessPrefix,
        expires_at: new Date(args.accessExpiresAt),
        last_used_at: ctx.now,
        ...(args.clientAddress && { client_address: args.clientAddress }),
      })
      .where('id', '=', held.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    return { outcome: 'refreshed', device: toSession(row) }
  },
})

/** The user a refresh token was given to, so its refresh can act as them; null for no such token. */
export async function deviceRefreshUser(
  db: Kysely<Database>,
  refreshTokenHash: string,
): Promise<string | null> {
  const row = await db
    .selectFrom('device_refresh_tokens as t')
    .innerJoin('api_keys as k', 'k.id', 't.key_id')
    .select('k.user_id')
    .where('t.token_hash', '=', refreshTokenHash)
    .executeTakeFirst()
  return row?.user_id ?? null
}
