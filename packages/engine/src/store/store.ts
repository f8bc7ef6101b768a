import type { Kysely } from 'kysely'
import type { Database } from '../database.ts'

/** The write-ahead log syncs an embedded durable folder has run, for benchmarks (docs/durability.md). */
export interface WalSyncCounts {
  inPlace: number
  pooled: number
}

/** An open database: the Kysely handle plus what the caller needs to know and release. */
export interface Store {
  db: Kysely<Database>
  kind: 'pglite' | 'postgres'
  /** Where the data lives, for log lines: a folder, `memory://`, or a redacted URL. */
  location: string
  /**
   * Hears `NOTIFY channel` from this store's own connection, on PGlite (one connection, one
   * process); answers the function that stops listening. PostgreSQL stores have none: a pooled
   * connection cannot hold LISTEN, so the server listens there on a connection of its own.
   */
  listen?(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>
  /**
   * The write-ahead log syncs an embedded durable folder has run so far, in place and on Node's
   * thread pool (docs/durability.md); absent on other stores. For benchmarks.
   */
  walSyncs?(): WalSyncCounts
  /**
   * Answers once everything committed so far is in the store's storage. Only a store whose
   * commits answer before their writes are stored has it (a browser replica, PGlite's
   * `relaxedDurability`): what it shows can be lost if the browser closes before then, and is
   * then synced again from the server.
   */
  persisted?(): Promise<void>
  /**
   * Holds the writes of what commits behind its answer (`persisted`) until `until` settles, so
   * they do not queue ahead of a write that must be durable first (a browser replica holds its
   * IndexedDB flushes while a mutation's queue record is written). Nothing is lost: the changes
   * wait, and are written together once it settles.
   */
  holdWrites?(until: Promise<unknown>): void
  close(): Promise<void>
}
