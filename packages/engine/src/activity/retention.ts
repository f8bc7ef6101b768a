import { type Kysely, sql } from 'kysely'
import type { Database } from '../database.ts'

/** How long activity is kept unless configured: two years. */
export const DEFAULT_ACTIVITY_RETENTION_DAYS = 730

/**
 * Deletes the activity entries (and their row images) older than `days` before `now`, at most
 * `batch` entries a call, oldest first; answers how many went. A job calls it until it answers
 * fewer than `batch`, so one trim never holds a long transaction.
 */
export async function trimActivity(
  db: Kysely<Database>,
  { now, days, batch = 5_000 }: { now: Date; days: number; batch?: number },
): Promise<number> {
  const cutoff = new Date(now.getTime() - days * 86_400_000).toISOString()
  return db.transaction().execute(async (tx) => {
    const { rows } = await sql<{ household_id: string; version: number }>`
      delete from activity where (household_id, version) in (
        select household_id, version from activity where occurred_at < ${cutoff}::timestamptz
        order by occurred_at limit ${batch})
      returning household_id, version`.execute(tx)
    if (rows.length === 0) return 0
    await sql`delete from activity_changes c
      using unnest(${sql.val(rows.map((r) => r.household_id))}::text[], ${sql.val(rows.map((r) => String(r.version)))}::bigint[]) as x(h, v)
      where c.household_id = x.h and c.version = x.v`.execute(tx)
    return rows.length
  })
}
