import { type Kysely, sql } from 'kysely'
import type { Database } from '../database.ts'
import { syncDb } from './tables.ts'

/**
 * Trims change-log rows written before `before`, and raises each household's floor to the
 * highest version it trimmed. A version's rows share their transaction's timestamp, so whole
 * versions go at once. `householdId` limits it to one household. Returns how many rows went.
 */
export async function trimChangeLog(
  db: Kysely<Database>,
  before: Date,
  options: { householdId?: string } = {},
): Promise<number> {
  return db.transaction().execute(async (tx) => {
    // One statement per case, not `($only is null or household_id = $only)`: a generic plan of
    // that (PostgreSQL's after five runs) cannot use the household's index for either.
    const only = options.householdId === undefined ? sql`true` : sql`household_id = ${options.householdId}`
    const { rows } = await sql<{ household_id: string; version: number; n: number }>`
      with trimmed as (
        delete from change_log
        where created_at < ${before} and ${only}
        returning household_id, version
      )
      select household_id, max(version)::bigint as version, count(*)::bigint as n
      from trimmed group by household_id`.execute(tx)
    for (const r of rows) {
      await syncDb(tx)
        .insertInto('sync_log_floors')
        .values({ household_id: r.household_id, version: r.version })
        .onConflict((oc) =>
          oc
            .column('household_id')
            .doUpdateSet({ version: sql`greatest(sync_log_floors.version, excluded.version)` }),
        )
        .execute()
    }
    return rows.reduce((sum, r) => sum + r.n, 0)
  })
}

/** Forgets rejection records older than `before`; a device away that long has been reset anyway. */
export async function trimRejections(db: Kysely<Database>, before: Date): Promise<number> {
  const result = await syncDb(db)
    .deleteFrom('sync_rejections')
    .where('created_at', '<', before)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** The highest trimmed version of a household: a cursor below it cannot be served from the log. */
export async function logFloor(db: Kysely<Database>, householdId: string): Promise<number> {
  const row = await syncDb(db)
    .selectFrom('sync_log_floors')
    .select('version')
    .where('household_id', '=', householdId)
    .executeTakeFirst()
  return row?.version ?? 0
}
