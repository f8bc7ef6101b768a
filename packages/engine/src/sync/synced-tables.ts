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

/**
 * A synced table's primary key, and the column that names a row's household: `id` for the
 * households table itself (keyed by id alone), `household_id` for every other one.
 */
export async function syncKey(
  db: Kysely<Database> | Transaction<Database>,
  table: string,
): Promise<{ key: string[]; owner: 'id' | 'household_id' }> {
  const { rows } = await sql<{ key: string[] }>`select hearth_sync_key(${table}) as key`.execute(db)
  const key = rows[0]?.key ?? []
  return { key, owner: key.length === 1 ? 'id' : 'household_id' }
}
