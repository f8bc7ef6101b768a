import { createHash } from 'node:crypto'
import {
  type Database,
  EngineError,
  findActiveKey,
  insufficientScope,
  notFound,
  type Role,
  resolveMembership,
  type Scope,
  type Store,
  sendStatement,
} from '@hearth/engine'
import { SYNC_JOIN_SCOPE, syncDb } from '@hearth/engine/sync'
import type { Transaction } from 'kysely'
import { hashApiKey } from '../auth/api-key-token.ts'
import { DEFAULT_SYNC_SOCKET_LIMITS } from './socket-limits.ts'

/** A key's owner and rights, as sync authorizes with them. */
export interface SyncCaller {
  userId: string
  keyId: string
  scopes: Scope[]
}

/** A device that joined a household: every push is authorized from this, never from args. */
export interface Device extends SyncCaller {
  clientId: string
  householdId: string
  role: Role
}

/** Resolves a bearer token to its caller: an unknown or revoked key is a 401. */
export async function authenticateToken(store: Store, token: string | undefined): Promise<SyncCaller> {
  if (!token) {
    throw new EngineError(
      401,
      'UNAUTHENTICATED',
      'Send an API key in hello.token or as Authorization: Bearer.',
    )
  }
  const key = await findActiveKey(store.db, hashApiKey(token), new Date())
  if (!key) throw new EngineError(401, 'UNAUTHENTICATED', 'The API key is unknown or has been revoked.')
  return key
}

/**
 * Admits a device to a household: the key needs `read:households`, its user must be a member
 * (a foreign household answers 404, as over REST), a client id stays bound to the user and
 * household it first joined with (another caller naming it gets a record of its own, never a
 * refusal that would tell the id exists), and a member binds at most `maxDevices` client ids per
 * household.
 */
export async function joinHousehold(
  store: Store,
  caller: SyncCaller,
  householdRef: string,
  clientId: string,
  deviceName?: string,
  maxDevices = DEFAULT_SYNC_SOCKET_LIMITS.maxDevicesPerKey,
): Promise<Device> {
  if (!caller.scopes.includes(SYNC_JOIN_SCOPE)) throw insufficientScope(SYNC_JOIN_SCOPE)
  const membership = await resolveMembership(store.db, caller.userId, householdRef)
  if (!membership) throw notFound('Household', householdRef)
  const db = syncDb(store.db)
  const known = await db
    .selectFrom('sync_clients')
    .select((eb) => [
      eb.fn.countAll<string>().as('devices'),
      eb.fn
        .countAll<string>()
        .filterWhere('client_id', 'in', [
          clientId,
          boundElsewhereId(clientId, caller.userId, membership.householdId),
        ])
        .as('this'),
    ])
    .where('household_id', '=', membership.householdId)
    .where('user_id', '=', caller.userId)
    .executeTakeFirstOrThrow()
  if (Number(known.this) === 0 && Number(known.devices) >= maxDevices) {
    throw new EngineError(
      429,
      'TOO_MANY_DEVICES',
      `You already have ${maxDevices} devices in this household; a new device id cannot join. Reuse a device's id, or ask the server's operator to raise HEARTH_SYNC_MAX_DEVICES_PER_KEY.`,
    )
  }
  const bind = async (id: string) => {
    await db
      .insertInto('sync_clients')
      .values({
        client_id: id,
        household_id: membership.householdId,
        user_id: caller.userId,
        device_name: deviceName ?? null,
      })
      .onConflict((oc) => oc.column('client_id').doUpdateSet({ last_seen_at: new Date() }))
      .execute()
    const record = await db
      .selectFrom('sync_clients')
      .select(['household_id', 'user_id'])
      .where('client_id', '=', id)
      .executeTakeFirstOrThrow()
    return record.household_id === membership.householdId && record.user_id === caller.userId
  }
  let serverId = clientId
  if (!(await bind(clientId))) {
    // The id is bound to another user or household. Refusing would tell the caller it exists
    // there; instead the device gets a record of its own under an id derived from its own, its
    // user and the household, and is served exactly as a new device would be.
    serverId = boundElsewhereId(clientId, caller.userId, membership.householdId)
    if (!(await bind(serverId))) throw new Error(`Device record ${serverId} is bound elsewhere.`)
  }
  return { ...caller, clientId: serverId, householdId: membership.householdId, role: membership.role }
}

/** The server's own record id for a device whose chosen id is bound to someone else. */
export function boundElsewhereId(clientId: string, userId: string, householdId: string): string {
  const digest = createHash('sha256').update(`${userId}\0${householdId}\0${clientId}`).digest('base64url')
  return `~${digest.slice(0, 40)}`
}

/** A device's record as a push found it: its lmid, and its rights as they stand now. */
export interface LockedDevice {
  device: Device
  lmid: number
}

/**
 * Locks a device's sync record for a push and, in the same statement, checks again that its key
 * is live and its user still a member, picking up a changed role: a revoked key or a removed
 * member stops syncing at once, and the push pays no round trip of its own for the check. The
 * statement is sent without waiting (`sendStatement`); `locked()` answers what it found.
 */
export async function sendDeviceLock(
  tx: Transaction<Database>,
  device: Device,
): Promise<{ locked(): Promise<LockedDevice> }> {
  const sent = await sendStatement(
    tx,
    syncDb(tx)
      .selectFrom('sync_clients as sc')
      .leftJoin('api_keys as k', (join) => join.on('k.id', '=', device.keyId))
      .leftJoin('memberships as m', (join) =>
        join.on('m.user_id', '=', device.userId).on('m.household_id', '=', device.householdId),
      )
      .select(['sc.lmid', 'k.scopes', 'k.revoked_at', 'm.role'])
      .where('sc.client_id', '=', device.clientId)
      .forUpdate('sc'),
  )
  return {
    async locked() {
      const row = (await sent.answer).rows[0]
      if (!row) throw new Error(`Device ${device.clientId} has no sync record.`)
      if (!row.scopes || row.revoked_at) {
        throw new EngineError(401, 'UNAUTHENTICATED', 'The API key has been revoked.')
      }
      if (!row.role) throw notFound('Household', device.householdId)
      return { device: { ...device, scopes: row.scopes as Scope[], role: row.role as Role }, lmid: row.lmid }
    },
  }
}

/** Whether two views of a device carry the same rights: its role and its scopes. */
export function sameRights(a: Device, b: Device): boolean {
  return a.role === b.role && sameScopes(a.scopes, b.scopes)
}

/** Whether two scope lists hold the same scopes, in any order. */
export function sameScopes(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s) => b.includes(s))
}

/**
 * The server's record id of `clientId` if the caller already bound that device to this
 * household (under its own id, or under the derived one), else null. Writes nothing.
 */
export async function ownDevice(
  store: Store,
  caller: SyncCaller,
  householdId: string,
  clientId: string,
): Promise<string | null> {
  const row = await syncDb(store.db)
    .selectFrom('sync_clients')
    .select('client_id')
    .where('client_id', 'in', [clientId, boundElsewhereId(clientId, caller.userId, householdId)])
    .where('household_id', '=', householdId)
    .where('user_id', '=', caller.userId)
    .orderBy('client_id', 'desc')
    .executeTakeFirst()
  return row?.client_id ?? null
}
