import { type Kysely, sql, type Transaction } from 'kysely'
import type { Database } from '../database.ts'
import type { Scope } from '../scopes.ts'

/**
 * The read scope a key needs to receive a table's rows over sync. A device only gets what the
 * same key could read over REST; a table missing here needs `read:households`.
 */
export const TABLE_READ_SCOPES: Record<string, Scope> = {
  households: 'read:households',
  memberships: 'read:households',
  accounts: 'read:accounts',
  exchange_rates: 'read:accounts',
  transactions: 'read:transactions',
  transaction_splits: 'read:transactions',
  transaction_tags: 'read:transactions',
  transaction_flags: 'read:transactions',
  flags: 'read:transactions',
  category_groups: 'read:categories',
  categories: 'read:categories',
  payees: 'read:payees',
  tags: 'read:tags',
}

/** The scope a device needs to join a household's sync at all. */
export const SYNC_JOIN_SCOPE: Scope = 'read:households'

/** Whether a key with `scopes` may receive rows of `table`. */
export function canReadTable(table: string, scopes: readonly Scope[]): boolean {
  return scopes.includes(TABLE_READ_SCOPES[table] ?? SYNC_JOIN_SCOPE)
}

/**
 * Every table a household replica holds: those the change-log trigger covers, so a table added
 * with `logChanges` in a migration syncs without a list to update.
 */
export async function syncedTables(db: Kysely<Database> | Transaction<Database>): Promise<string[]> {
  const { rows } = await sql<{ t: string }>`select hearth_synced_tables() as t`.execute(db)
  return rows.map((r) => r.t)
}
