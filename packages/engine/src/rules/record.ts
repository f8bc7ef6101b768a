import { sql, type Transaction } from 'kysely'
import type { Database } from '../database.ts'
import type { RuleChanges } from './classify.ts'
import type { RuleTrigger } from './tables.ts'

/** Records per INSERT, sent as one JSON array (about 200 bytes each). */
const CHUNK = 5000

/** A row's rule applications, as classification found them. */
export interface AppliedRow {
  transactionId: string
  result: { applications: readonly { ruleId: string; changes: RuleChanges }[] }
}

/**
 * Records which rule changed which fields of which row, and how (auto on create or import,
 * manual on apply). Ids are keyed like link rows (`<transaction>:<tag>`), never hashed, so no two
 * collide: `<transaction>:<rule>:auto` (a row is created once, so a device and the server
 * replaying its mutation write the very same record), and `<transaction>:<rule>:<epoch ms>` for
 * a back-fill, which may run again later.
 */
export async function recordApplications(
  tx: Transaction<Database>,
  householdId: string,
  rows: readonly AppliedRow[],
  trigger: RuleTrigger,
  now: Date,
): Promise<void> {
  const records = rows.flatMap((row) =>
    row.result.applications.map((a) => ({
      id:
        trigger === 'auto'
          ? `${row.transactionId}:${a.ruleId}:auto`
          : `${row.transactionId}:${a.ruleId}:${now.getTime()}`,
      rule_id: a.ruleId,
      transaction_id: row.transactionId,
      changes: a.changes,
    })),
  )
  // The records travel as one JSON parameter per chunk: thousands of bound values would cost
  // more to send and parse than the rows cost to write.
  for (let i = 0; i < records.length; i += CHUNK) {
    await sql`
      insert into rule_applications (household_id, id, rule_id, transaction_id, trigger, changes, applied_at)
      select ${householdId}, r.id, r.rule_id, r.transaction_id, ${trigger}, r.changes, ${now}::timestamptz
      from jsonb_to_recordset(${JSON.stringify(records.slice(i, i + CHUNK))}::jsonb)
        as r(id text, rule_id text, transaction_id text, changes jsonb)
      on conflict (household_id, id) do update set changes = excluded.changes, applied_at = excluded.applied_at`.execute(
      tx,
    )
  }
}
