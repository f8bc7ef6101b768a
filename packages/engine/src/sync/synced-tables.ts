import { type Kysely, sql, type Transaction } from 'kysely'
import type { Database } from '../database.ts'

/**
 * Every table a household replica holds: those the change-log trigger covers, so a table added
 * with `logChanges` in a migration is logged without a list to update. Which devices receive its
 * rows is the read policy's to say (`READ_POLICY`); a table it does not name is sent to none.
 */
export async function syncedTables(db: Kysely<Database> | Transaction<Database>): Promise<string[]> {
  const { rows } = await sql<{ t: string }>`select hearth_synced_tables() as t`.execute(db)
  return rows.map((r) => r.t)
}
