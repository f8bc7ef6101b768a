/** Node-only entry: stores that need the file system or a socket. */
import { lockDataDir } from './store/data-dir-lock.ts'
import { openPGliteStore } from './store/pglite-store.ts'
import { openPostgresStore } from './store/postgres-store.ts'
import type { Store } from './store/store.ts'

export { DataDirLockedError, lockDataDir } from './store/data-dir-lock.ts'
export { openPostgresStore, redact } from './store/postgres-store.ts'

/** Where the server keeps its data: PostgreSQL when a URL is given, else PGlite in a folder or memory. */
export interface StoreConfig {
  databaseUrl?: string
  dataDir: string
}

/** Opens the configured store; a PGlite folder is locked against a second process first. */
export async function openStore(config: StoreConfig): Promise<Store> {
  if (config.databaseUrl) return openPostgresStore({ url: config.databaseUrl })
  if (config.dataDir === 'memory://') return openPGliteStore({ dataDir: 'memory://' })
  const release = lockDataDir(config.dataDir)
  try {
    return await openPGliteStore({ dataDir: config.dataDir, onClose: release })
  } catch (error) {
    release()
    throw error
  }
}
