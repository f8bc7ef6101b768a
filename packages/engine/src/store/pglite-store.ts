import { PGlite, type PGliteOptions } from '@electric-sql/pglite'
import { Kysely } from 'kysely'
import type { Database } from '../database.ts'
import { PGliteDriver } from './pglite-driver.ts'
import { postgresDialect } from './postgres-dialect.ts'
import { PreparedPGlite } from './prepared-pglite.ts'
import type { Store, WalSyncCounts } from './store.ts'
import { TYPE_PARSERS } from './type-parsers.ts'

/** Options for an embedded store; `dataDir` is a folder, `memory://`, or `idb://name` in browsers. */
export interface PGliteStoreOptions {
  dataDir: string
  /** Released after the database closes, for example a data-folder lock. */
  onClose?: () => Promise<void> | void
  /**
   * PostgreSQL's buffer pool (`shared_buffers`), such as `32MB`; PGlite's default is initdb's
   * 128MB. PGlite lays the whole pool out in WebAssembly memory as it starts: on this machine
   * (2026-11-25) an existing folder opened in 610-690 ms with 128MB, 240-260 ms with 32MB.
   */
  sharedBuffers?: string
  /** Makes a folder durable (see `durableStorage` in the Node entry); absent, PGlite never syncs. */
  durable?: DurableStorage
  /**
   * A file system of the caller's (the browser's IndexedDB block store, say), opened instead of
   * `dataDir`, which then only names the store.
   */
  fs?: NonNullable<PGliteOptions['fs']>
  /** Arguments for initdb, when the store is new (`--wal-segsize=1`, say). */
  initdbParams?: readonly string[]
  /** Settings after PGlite's own start parameters, each passed as `-c name=value`. */
  settings?: Readonly<Record<string, string>>
  /**
   * Answers a query before its writes reach `fs` (PGlite's `relaxedDurability`); the writes
   * follow in the order they were made.
   */
  relaxedDurability?: boolean
  /**
   * A new store starts from this data folder (a tarball from PGlite's `dumpDataDir`) instead of
   * initdb; only for a store with no data yet (PGlite refuses it over an existing one).
   */
  loadDataDir?: Blob
}

/** How a folder store syncs: its file system, its start parameters, and the wait before a commit is answered. */
export interface DurableStorage {
  fs: NonNullable<PGliteOptions['fs']>
  startParams: readonly string[]
  /**
   * Answers once every write-ahead log write so far is on stable storage; `alone` when no other
   * caller waits for the store (the sync may then run in place).
   */
  settle(alone?: boolean): Promise<void>
  /** Runs once the database is open. */
  afterOpen(): void
  /** WAL syncs run so far: in place (a lone commit on a fast disk) and on Node's thread pool. */
  syncs(): WalSyncCounts
}

/** Opens PGlite with the shared type parsers; browser-safe (no Node imports). */
export async function openPGliteStore(options: PGliteStoreOptions): Promise<Store> {
  const pgliteOptions: PGliteOptions = { parsers: TYPE_PARSERS }
  const durable = options.durable
  const startParams = [...(durable?.startParams ?? PGlite.defaultStartParams)]
  if (options.sharedBuffers) startParams.push('-c', `shared_buffers=${options.sharedBuffers}`)
  for (const [name, value] of Object.entries(options.settings ?? {}))
    startParams.push('-c', `${name}=${value}`)
  if (durable || options.sharedBuffers || options.settings) pgliteOptions.startParams = startParams
  const fs = durable?.fs ?? options.fs
  if (fs) pgliteOptions.fs = fs
  if (options.initdbParams) pgliteOptions.initDbStartParams = [...options.initdbParams]
  if (options.relaxedDurability) pgliteOptions.relaxedDurability = true
  if (options.loadDataDir) pgliteOptions.loadDataDir = options.loadDataDir
  const pg =
    options.dataDir === 'memory://' || fs
      ? new PGlite(pgliteOptions)
      : new PGlite(options.dataDir, pgliteOptions)
  await pg.waitReady
  durable?.afterOpen()
  const store = wrapPGlite(pg, options.dataDir, options.onClose, durable?.settle)
  if (durable) return { ...store, walSyncs: durable.syncs }
  // The file system chains its flushes, so one more waits for those before it.
  if (options.relaxedDurability && fs) return { ...store, persisted: () => fs.syncToFs() }
  return store
}

/** Wraps an already-open PGlite (a clone, say) as a store. */
export function wrapPGlite(
  pg: PGlite,
  location: string,
  onClose?: () => Promise<void> | void,
  settle?: (alone?: boolean) => Promise<void>,
): Store {
  const prepared = new PreparedPGlite(pg, settle)
  const db = new Kysely<Database>({ dialect: postgresDialect(() => new PGliteDriver(prepared)) })
  return {
    db,
    kind: 'pglite',
    location,
    listen: (channel, onPayload) => prepared.listen(channel, onPayload),
    async close() {
      await db.destroy()
      await onClose?.()
    },
  }
}
