import { sql, type Transaction } from 'kysely'
import type { Database } from '../database.ts'
import type { RuleChanges } from './classify.ts'

/** Records per INSERT, sent as one JSON array (about 200 bytes each). */
const CHUNK = 5000
/** Most rows one back-fill record lists; a larger group takes several records. */
export const RUN_RECORD_ROWS = 5000

/** A row's rule applications, as classification found them. */
export interface AppliedRow {
  transactionId: string
  result: { applications: readonly { ruleId: string; changes: RuleChanges }[] }
}

/**
 * Records which rule changed which fields of which row as the rows are created or imported
 * (trigger auto), one record per (row, rule). Ids are keyed like link rows
 * (`<transaction>:<tag>`), never hashed, so no two collide: `<transaction>:<rule>:auto`. A row is
 * created once, so a device and the server replaying its mutation write the very same record.
 */
export async function recordApplications(
  tx: Transaction<Database>,
  householdId: string,
  rows: readonly AppliedRow[],
  now: Date,
): Promise<void> {
  const records = rows.flatMap((row) =>
    row.result.applications.map((a) => ({
      id: `${row.transactionId}:${a.ruleId}:auto`,
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
      select ${householdId}, r.id, r.rule_id, r.transaction_id, 'auto', r.changes, ${now}::timestamptz
      from jsonb_to_recordset(${JSON.stringify(records.slice(i, i + CHUNK))}::jsonb)
        as r(id text, rule_id text, transaction_id text, changes jsonb)
      on conflict (household_id, id) do update set changes = excluded.changes, applied_at = excluded.applied_at`.execute(
      tx,
    )
  }
}

/**
 * Records a back-fill (`apply`, `apply-all`): the rows one rule changed the same way, from the
 * same values, share a record that lists them (at most 5,000 a record). Ids are
 * `<rule>:<epoch ms>:<n>`, numbered in the order the groups first appear in the run's rows (id
 * order), so a device and the server replaying its mutation over the same rows write the same
 * records. A run over 100,000 rows writes tens of records, not 100,000.
 */
export async function recordRun(
  tx: Transaction<Database>,
  householdId: string,
  rows: readonly AppliedRow[],
  now: Date,
): Promise<void> {
  const groups = new Map<string, { rule_id: string; changes: RuleChanges; transaction_ids: string[] }>()
  for (const row of rows) {
    for (const a of row.result.applications) {
      const key = `${a.ruleId}\u0000${JSON.stringify(a.changes)}`
      const group = groups.get(key)
      if (group) group.transaction_ids.push(row.transactionId)
      else groups.set(key, { rule_id: a.ruleId, changes: a.changes, transaction_ids: [row.transactionId] })
    }
  }
  const numbered = new Map<string, number>()
  const records: { id: string; rule_id: string; changes: RuleChanges; transaction_ids: string[] }[] = []
  for (const group of groups.values()) {
    for (let i = 0; i < group.transaction_ids.length; i += RUN_RECORD_ROWS) {
      const n = numbered.get(group.rule_id) ?? 0
      numbered.set(group.rule_id, n + 1)
      records.push({
        id: `${group.rule_id}:${now.getTime()}:${n}`,
        rule_id: group.rule_id,
        changes: group.changes,
        transaction_ids: group.transaction_ids.slice(i, i + RUN_RECORD_ROWS),
      })
    }
  }
  // Each statement carries at most about 5,000 row ids, whatever the number of records.
  let start = 0
  while (start < records.length) {
    let end = start
    let ids = 0
    while (end < records.length && (end === start || ids + records[end]!.transaction_ids.length <= CHUNK)) {
      ids += records[end]!.transaction_ids.length
      end++
    }
    await sql`
      insert into rule_runs (household_id, id, rule_id, changes, transaction_ids, applied_at)
      select ${householdId}, r.id, r.rule_id, r.changes, r.transaction_ids, ${now}::timestamptz
      from jsonb_to_recordset(${JSON.stringify(records.slice(start, end))}::jsonb)
        as r(id text, rule_id text, changes jsonb, transaction_ids text[])
      on conflict (household_id, id) do update
        set changes = excluded.changes, transaction_ids = excluded.transaction_ids, applied_at = excluded.applied_at`.execute(
      tx,
    )
    start = end
  }
}
