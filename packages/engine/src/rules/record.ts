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
 * manual on apply). An id is `<transaction>:<rule>:<epoch ms of the mutation>` (as link rows
 * are keyed `<transaction>:<tag>`), so a device and the server replaying the same mutation write
 * the same records, and no hash can make two of them collide.
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
      id: `${row.transactionId}:${a.ruleId}:${now.getTime()}`,
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
