import type { ColumnType, Generated, Kysely, Transaction } from 'kysely'
import type { Database } from '../database.ts'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>

/** Server: one syncing device, bound to one user and one household, and how far it got. */
export interface SyncClientsTable {
  client_id: string
  household_id: string
  user_id: string
  device_name: string | null
  /** The last mutation id the server processed for this device, applied or rejected. */
  lmid: Generated<number>
  created_at: Timestamp
  last_seen_at: Timestamp
}

/** Server: why a device's mutation was refused; told to the device again after a reconnect. */
export interface SyncRejectionsTable {
  client_id: string
  mutation_id: number
  name: string
  status: number
  code: string
  message: string
  created_at: Timestamp
}

/** Device: who this replica is and how far it has synced. */
export interface DeviceStateTable {
  household_id: string
  client_id: string
  user_id: string | null
  role: string | null
  scopes: string[]
  /** The server version the replica's synced rows are at; null before the first snapshot. */
  version: number | null
  lmid: number
}

/** Device: a local mutation the server has not confirmed yet. */
export interface DevicePendingTable {
  mutation_id: number
  name: string
  args: ColumnType<unknown, string, string>
  created_at: Timestamp
}

/** Device: a row's image from before a pending mutation wrote it (null: it did not exist). */
export interface DeviceUndoTable {
  seq: Generated<number>
  mutation_id: number
  table_name: string
  household_id: string
  row_id: string
  row: Record<string, unknown> | null
}

/**
 * Device: a confirmed mutation's row images from before it (null: it did not exist), in the order
 * it wrote them, kept for the device's last confirmed mutations so it can undo them offline
 * (migration 0046).
 */
export interface DeviceHistoryTable {
  mutation_id: number
  seq: number
  table_name: string
  household_id: string
  row_id: string
  before: Record<string, unknown> | null
}

/** Server: the highest version of a household whose change-log rows were trimmed. */
export interface SyncLogFloorsTable {
  household_id: string
  version: number
}

/** The tables sync adds to the engine's. */
export interface SyncTables {
  sync_log_floors: SyncLogFloorsTable
  sync_clients: SyncClientsTable
  sync_rejections: SyncRejectionsTable
  device_state: DeviceStateTable
  device_pending: DevicePendingTable
  device_undo: DeviceUndoTable
  device_history: DeviceHistoryTable
}

/** The engine's tables plus sync's. */
export type SyncDatabase = Database & SyncTables

/** Views a store's handle with sync's tables typed too; the schema holds them after 0004. */
export function syncDb(db: Kysely<Database>): Kysely<SyncDatabase>
export function syncDb(db: Transaction<Database>): Transaction<SyncDatabase>
export function syncDb(db: Kysely<Database> | Transaction<Database>) {
  return db as unknown as Kysely<SyncDatabase>
}
