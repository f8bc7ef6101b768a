import type { Store } from '@hearth/engine'
import { sql } from 'kysely'

/**
 * Opens a replica's store and reads every table through, which meets a torn or damaged page;
 * a store that fails the check is closed and the error thrown. A replica is only a cache of the
 * server's rows plus this device's pending mutations, which live in the queue beside it, so a
 * caller that meets an error here may discard the store and open an empty one (see
 * `openReplicaFolder` in Node and `openBrowserReplica`): it takes a snapshot from the server
 * and the queue replays onto it.
 */
export async function openChecked(open: () => Promise<Store>): Promise<Store> {
  const store = await open()
  try {
    const { rows } = await sql<{ name: string }>`
      select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = current_schema() and c.relkind = 'r'`.execute(store.db)
    for (const { name } of rows) await sql`select count(*) from ${sql.table(name)}`.execute(store.db)
    return store
  } catch (error) {
    await store.close().catch(() => {})
    throw error
  }
}
