import { sql } from 'kysely'
import type { Store } from './store.ts'

/**
 * Refreshes planner statistics and reclaims dead rows where nothing else will, then checkpoints.
 * PGlite runs no autovacuum: without this, plans chosen while the tables were empty stay chosen
 * as they grow, and a 100k-row ledger slows by orders of magnitude. Nor does it checkpoint by
 * itself (one backend, no checkpointer): its write-ahead log grows until it closes, and so does
 * the log a restart after a crash replays (docs/durability.md). PostgreSQL does both itself.
 */
export async function maintainStore(store: Store): Promise<boolean> {
  if (store.kind !== 'pglite') return false
  await sql`vacuum analyze`.execute(store.db)
  await sql`checkpoint`.execute(store.db)
  return true
}
