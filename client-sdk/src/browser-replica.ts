import { PGlite } from '@electric-sql/pglite'
import { migrateToLatest, openPGliteStore, type Store, wrapPGlite } from '@hearth/engine'
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
export async function openBrowserReplica(
  name: string,
  template?: () => Promise<Blob | null>,
): Promise<BrowserReplicaOpened> {
  const release = await lockReplica(name)
  const start = performance.now()
  try {
    globalThis.indexedDB?.deleteDatabase(`/pglite/${name}`)
    let rebuilt = false
    let store: Store
    try {
      store = await openChecked(async () => {
        const opened = await openBlockStore(name, template)
        performance.measure('hearth: replica start', { start })
        return opened
      })
    } catch {
      // Made the long way this time (initdb and the migrations), in case the template was at fault.
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

/**
 * Opens PGlite on the block store of `name`, a new one from `template` when there is one; if it
 * fails, the store's connection is closed.
 */
async function openBlockStore(name: string, template?: () => Promise<Blob | null>): Promise<Store> {
  let backend: IdbBlockStore | undefined
  try {
    const made = idbBlockFs(name)
    backend = made.backend
    const loadDataDir = template && (await backend.isEmpty()) ? await templateOrNull(template) : null
    const store = await openPGliteStore({
      dataDir: `idb://${name}`,
      fs: made.fs,
      sharedBuffers: DEVICE_SHARED_BUFFERS,
      initdbParams: BLOCK_FS_INITDB,
      settings: BLOCK_FS_SETTINGS,
      relaxedDurability: true,
      ...(loadDataDir && { loadDataDir }),
    })
    if (loadDataDir) performance.mark('hearth: replica from template')
    await dropTemplates(store)
    const blocks = backend
    return { ...store, holdWrites: (until) => blocks.holdUntil(until) }
  } catch (error) {
    await backend?.close()
    throw error
  }
}

/**
 * The template, or null when it cannot be had (offline before the app was cached, say) or is not
 * gzip (an error page): PGlite would try to unzip that outside any promise it answers.
 */
export async function templateOrNull(template: () => Promise<Blob | null>): Promise<Blob | null> {
  try {
    const blob = await template()
    if (!blob) return null
    const head = new Uint8Array(await blob.slice(0, 2).arrayBuffer())
    return head[0] === 0x1f && head[1] === 0x8b ? blob : null
  } catch {
    return null
  }
}

/**
 * What a new replica is made from, in Node (the web app's build serves it beside its code): a
 * replica on the block store's initdb settings, every migration applied and initdb's template
 * databases dropped, as a gzipped tarball of its data folder.
 */
export async function makeReplicaTemplate(): Promise<Blob> {
  const pg = await PGlite.create({ initDbStartParams: [...BLOCK_FS_INITDB] })
  try {
    const store = wrapPGlite(pg, 'memory://')
    await migrateToLatest(store.db)
    await dropTemplates(store)
    await sql`checkpoint`.execute(store.db)
    const tarball = await pg.dumpDataDir('gzip')
    await store.db.destroy()
    return tarball
  } finally {
    if (!pg.closed) await pg.close()
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
