import { sql } from 'kysely'
import type { Store } from './store.ts'

/**
 * Refreshes planner statistics and reclaims dead rows where nothing else will. PGlite runs no
 * autovacuum: without this, plans chosen while the tables were empty stay chosen as they grow,
 * and a 100k-row ledger slows by orders of magnitude. PostgreSQL leaves it to autovacuum.
 */
export async function maintainStore(store: Store): Promise<boolean> {
  if (store.kind !== 'pglite') return false
  await sql`vacuum analyze`.execute(store.db)
  return true
}
