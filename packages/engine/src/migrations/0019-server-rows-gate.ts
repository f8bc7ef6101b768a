import { type Kysely, sql } from 'kysely'

/**
 * The triggers that derive rows from rows (a month's budget activity) or check them (a split
 * row's sum) skip the server's rows as a device applies them, by a WHEN clause on the
 * transaction-local setting `hearth.server_rows`, instead of by replica mode alone.
 *
 * A device applied every delta in `session_replication_role = replica`, and ran its own
 * mutations in `origin`. PostgreSQL empties its whole plan cache whenever that role changes,
 * so a device that both receives and writes (every member's phone) planned its next local
 * mutation, its PL/pgSQL triggers and foreign-key checks afresh after each delta: measured
 * in one process on 2026-11-25, a local call 15 ms after a one-row rebase took 3.65 ms with
 * the switch and 2.7 ms without it. A small delta now lands in origin mode with this setting on
 * (client-sdk `Replica.rebase`): these triggers do not fire, the change-log trigger has nothing
 * to log (neither `hearth.version` nor `hearth.undo` is set), and the foreign keys are checked
 * at the end of the delta; one that fails sends the delta back the replica way.
 *
 * Every origin-only trigger on a synced table other than the change-log trigger carries the
 * same clause (test: `server-rows-gate.db.test.ts`); a new one must too. A WHEN clause is
 * evaluated as the row or statement event happens, also for a deferred constraint trigger,
 * so a gated check is not queued for the commit either.
 */
const GATED = [
  ['transaction_splits', 'transaction_splits_sum_check'],
  ['transactions', 'transactions_split_sum_check'],
  ['transactions', 'transactions_budget_activity_insert'],
  ['transactions', 'transactions_budget_activity_update'],
  ['transactions', 'transactions_budget_activity_delete'],
  ['transaction_splits', 'transaction_splits_budget_activity_insert'],
  ['transaction_splits', 'transaction_splits_budget_activity_update'],
  ['transaction_splits', 'transaction_splits_budget_activity_delete'],
] as const

const NOT_SERVER_ROWS = `current_setting('hearth.server_rows', true) IS DISTINCT FROM 'on'`

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [table, trigger] of GATED) {
    const { rows } = await sql<{ def: string }>`
      select pg_get_triggerdef(t.oid) as def from pg_trigger t
      where t.tgrelid = ${table}::regclass and t.tgname = ${trigger}`.execute(db)
    const def = rows[0]?.def
    if (!def) throw new Error(`Migration 0019: trigger ${trigger} on ${table} is missing.`)
    await sql`drop trigger ${sql.id(trigger)} on ${sql.table(table)}`.execute(db)
    await sql.raw(gate(def)).execute(db)
  }
}

/** The trigger's definition with the gate added to its WHEN clause (or as its WHEN clause). */
export function gate(def: string): string {
  const at = def.lastIndexOf(' EXECUTE FUNCTION ')
  if (at < 0) throw new Error(`Migration 0019: cannot read the trigger definition ${def}`)
  const head = def.slice(0, at)
  const tail = def.slice(at)
  const when = head.indexOf(' WHEN (')
  if (when < 0) return `${head} WHEN (${NOT_SERVER_ROWS})${tail}`
  return `${head.slice(0, when)} WHEN ((${NOT_SERVER_ROWS}) AND ${head.slice(when + ' WHEN '.length)})${tail}`
}
