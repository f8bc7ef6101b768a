import { openPGliteStore, type Store } from '@hearth/engine'
import { sql } from 'kysely'
import { DEVICE_SHARED_BUFFERS } from './device-store.ts'
import {
  BLOCK_FS_INITDB,
  BLOCK_FS_SETTINGS,
  deleteBlockStore,
  type IdbBlockStore,
  idbBlockFs,
} from './idb-block-fs.ts'
import { openChecked } from './replica-check.ts'
import { lockReplica } from './replica-lock.ts'

/** What the browser replica `name` did as it opened. */
export interface BrowserReplicaOpened {
  store: Store
  /** The replica failed to open or its check, and was deleted and opened empty (to resync). */
  rebuilt: boolean
}

/**
 * Opens the browser replica `name` (`idb://name`): PGlite in memory, its files kept as blocks
 * in IndexedDB (idb-block-fs.ts), under the replica's Web Lock (REPLICA_IN_USE in a second
 * tab). A replica that fails to open or its check (`openChecked`) is deleted and opened empty:
 * the server sends a snapshot, and the mutation queue (a database of its own) replays onto it.
 * A replica of PGlite's `idb://` file system from before (Emscripten's IDBFS, under
 * `/pglite/name`) is deleted too, and rebuilt the same way.
 */
export async function openBrowserReplica(name: string): Promise<BrowserReplicaOpened> {
  const release = await lockReplica(name)
  const start = performance.now()
  try {
    globalThis.indexedDB?.deleteDatabase(`/pglite/${name}`)
    let rebuilt = false
    let store: Store
    try {
      store = await openChecked(async () => {
        const opened = await openBlockStore(name)
        performance.measure('hearth: replica start', { start })
        return opened
      })
    } catch {
      await deleteBlockStore(name)
      rebuilt = true
      store = await openBlockStore(name)
    }
    performance.measure('hearth: replica open', { start })
    return {
      rebuilt,
      store: {
        ...store,
        async close() {
          try {
            await store.close()
          } finally {
            release()
          }
        },
      },
    }
  } catch (error) {
    release()
    throw error
  }
}

/** Opens PGlite on the block store of `name`; if it fails, the store's connection is closed. */
async function openBlockStore(name: string): Promise<Store> {
  let backend: IdbBlockStore | undefined
  try {
    const made = idbBlockFs(name)
    backend = made.backend
    const store = await openPGliteStore({
      dataDir: `idb://${name}`,
      fs: made.fs,
      sharedBuffers: DEVICE_SHARED_BUFFERS,
      initdbParams: BLOCK_FS_INITDB,
      settings: BLOCK_FS_SETTINGS,
      relaxedDurability: true,
    })
    await dropTemplates(store)
    return store
  } catch (error) {
    await backend?.close()
    throw error
  }
}

/**
 * Drops initdb's template databases from a new replica: nothing here creates a database, and
 * they are 15 MB of the 28 MB an empty replica holds, which every open reads from IndexedDB.
 */
async function dropTemplates(store: Store): Promise<void> {
  const { rows } = await sql<{ datname: string }>`
    select datname from pg_database where datname in ('template0', 'template1')`.execute(store.db)
  for (const { datname } of rows) {
    await sql`alter database ${sql.id(datname)} is_template false`.execute(store.db)
    await sql`drop database ${sql.id(datname)}`.execute(store.db)
  }
}
