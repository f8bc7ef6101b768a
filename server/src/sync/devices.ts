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
 * household it first joined with, and a member binds at most `maxDevices` client ids per
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
      eb.fn.countAll<string>().filterWhere('client_id', '=', clientId).as('this'),
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
  await db
    .insertInto('sync_clients')
    .values({
      client_id: clientId,
      household_id: membership.householdId,
      user_id: caller.userId,
      device_name: deviceName ?? null,
    })
    .onConflict((oc) => oc.column('client_id').doUpdateSet({ last_seen_at: new Date() }))
    .execute()
  const record = await db
    .selectFrom('sync_clients')
    .select(['household_id', 'user_id'])
    .where('client_id', '=', clientId)
    .executeTakeFirstOrThrow()
  if (record.household_id !== membership.householdId || record.user_id !== caller.userId) {
    throw new EngineError(
      409,
      'CLIENT_MISMATCH',
      `Client ${clientId} belongs to another user or household; a device uses a new client id per household.`,
    )
  }
  return { ...caller, clientId, householdId: membership.householdId, role: membership.role }
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
  return (
    a.role === b.role && a.scopes.length === b.scopes.length && a.scopes.every((s) => b.scopes.includes(s))
  )
}

/** Whether `clientId` is a device the caller already bound to this household (no write). */
export async function ownsDevice(
  store: Store,
  caller: SyncCaller,
  householdId: string,
  clientId: string,
): Promise<boolean> {
  const row = await syncDb(store.db)
    .selectFrom('sync_clients')
    .select('client_id')
    .where('client_id', '=', clientId)
    .where('household_id', '=', householdId)
    .where('user_id', '=', caller.userId)
    .executeTakeFirst()
  return row !== undefined
}
