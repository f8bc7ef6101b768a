import type { Transaction } from 'kysely'
import type { Database } from '../database.ts'
import type { RuleChanges } from './classify.ts'
import type { RuleTrigger } from './tables.ts'

/** Records per INSERT: seven parameters each, well under PostgreSQL's 65,535. */
const CHUNK = 1000

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
      household_id: householdId,
      id:
        trigger === 'auto'
          ? `${row.transactionId}:${a.ruleId}:auto`
          : `${row.transactionId}:${a.ruleId}:${now.getTime()}`,
      rule_id: a.ruleId,
      transaction_id: row.transactionId,
      trigger,
      changes: JSON.stringify(a.changes),
      applied_at: now,
    })),
  )
  for (let i = 0; i < records.length; i += CHUNK) {
    await tx
      .insertInto('rule_applications')
      .values(records.slice(i, i + CHUNK))
      .onConflict((oc) =>
        oc.columns(['household_id', 'id']).doUpdateSet((eb) => ({
          changes: eb.ref('excluded.changes'),
          applied_at: eb.ref('excluded.applied_at'),
        })),
      )
      .execute()
  }
}
