import { type Kysely, sql, type Transaction } from 'kysely'
import type { Database } from '../database.ts'
import { syncedTables, syncKey } from './synced-tables.ts'

/**
 * Every replicated row of a household, table by table, in key order, with instants rendered in
 * UTC: two replicas hold the same data exactly when their dumps are equal.
 */
export async function dumpHousehold(
  db: Kysely<Database>,
  householdId: string,
): Promise<Record<string, Record<string, unknown>[]>> {
  // Inside a caller's transaction, the time zone stays UTC for the rest of it.
  if (db.isTransaction) return dumpIn(db as Transaction<Database>, householdId)
  return db.transaction().execute((tx) => dumpIn(tx, householdId))
}

async function dumpIn(tx: Transaction<Database>, householdId: string) {
  {
    await sql`set local time zone 'UTC'`.execute(tx)
    const out: Record<string, Record<string, unknown>[]> = {}
    for (const table of await syncedTables(tx)) {
      const { key, owner } = await syncKey(tx, table)
      const { rows } = await sql<{ row: Record<string, unknown> }>`
        select to_jsonb(t) as row from ${sql.table(table)} t
        where t.${sql.ref(owner)} = ${householdId}
        order by ${sql.join(key.map((k) => sql`t.${sql.ref(k)}`))}`.execute(tx)
      out[table] = rows.map((r) => r.row)
    }
    return out
  }
}
