import type { Kysely } from 'kysely'
import type { Database } from '../database.ts'

/** One logged row change, as sync ships it. */
export interface RowChange {
  version: number
  table: string
  id: string
  op: 'upsert' | 'delete'
  row: Record<string, unknown> | null
}

/** The household's current version: 0 before its first mutation. */
export async function householdVersion(db: Kysely<Database>, householdId: string): Promise<number> {
  const row = await db
    .selectFrom('household_clock')
    .select('version')
    .where('household_id', '=', householdId)
    .executeTakeFirst()
  return row?.version ?? 0
}

/** Row changes after `sinceVersion`, in commit order, up to `limit` rows. */
export async function changesSince(
  db: Kysely<Database>,
  householdId: string,
  sinceVersion: number,
  limit = 10_000,
): Promise<RowChange[]> {
  const rows = await db
    .selectFrom('change_log')
    .select(['version', 'table_name', 'row_id', 'op', 'row'])
    .where('household_id', '=', householdId)
    .where('version', '>', sinceVersion)
    .orderBy('version')
    .orderBy('seq')
    .limit(limit)
    .execute()
  return rows.map((r) => ({ version: r.version, table: r.table_name, id: r.row_id, op: r.op, row: r.row }))
}
