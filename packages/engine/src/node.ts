/** Node-only entry: stores that need the file system or a socket. */
import { lockDataDir } from './store/data-dir-lock.ts'
import { durableStorage } from './store/durable-node-fs.ts'
import { openPGliteStore } from './store/pglite-store.ts'
import { openPostgresStore } from './store/postgres-store.ts'
import type { Store } from './store/store.ts'

export { BackupError, type BackupHeader, restoreBackup, writeBackup } from './store/backup.ts'
export {
  clientConfigFor,
  isStoreUnavailable,
  parseClusterUrl,
  readClusterUrl,
  StoreUnavailableError,
  urlFor,
} from './store/cluster-url.ts'
export { DataDirLockedError, lockDataDir } from './store/data-dir-lock.ts'
export { DURABLE_START_PARAMS, durableStorage, syncTree } from './store/durable-node-fs.ts'
export { openPostgresStore, redact } from './store/postgres-store.ts'
export { DurabilityError } from './store/wal-sync.ts'

/** Where the server keeps its data: PostgreSQL when a URL is given, else PGlite in a folder or memory. */
export interface StoreConfig {
  databaseUrl?: string
  dataDir: string
  /** Sync a folder store's write-ahead log before a commit is answered (default true); see docs/durability.md. */
  durable?: boolean
  /** PostgreSQL only: told when the server ends an idle pooled connection (see openPostgresStore). */
  onConnectionLost?: (error: Error) => void
}

/** Opens the configured store; a PGlite folder is locked against a second process first. */
export async function openStore(config: StoreConfig): Promise<Store> {
  if (config.databaseUrl)
    return openPostgresStore({ url: config.databaseUrl, onConnectionLost: config.onConnectionLost })
  if (config.dataDir === 'memory://') return openPGliteStore({ dataDir: 'memory://' })
  const release = lockDataDir(config.dataDir)
  try {
    const durable = config.durable === false ? undefined : durableStorage(config.dataDir)
    return await openPGliteStore({ dataDir: config.dataDir, onClose: release, durable })
  } catch (error) {
    release()
    throw error
  }
}
