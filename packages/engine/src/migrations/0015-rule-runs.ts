import { type Kysely, sql } from 'kysely'
import { logChanges } from './change-log-trigger.ts'

/**
 * What a back-fill (`apply`, `apply-all`) changed, one record per rule and change rather than per
 * row: a run over 100,000 rows writes a few dozen records instead of 100,000, and sends a few
 * dozen rows to every device instead of 100,000. A record lists the rows it changed in
 * `transaction_ids` (at most 5,000; a larger group takes several records), all changed the same
 * way, from the same values. Records made as rows are created or imported (`auto`) stay one per
 * row in `rule_applications`, which this table completes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table rule_runs (
      household_id text not null references households (id),
      id text not null,
      rule_id text not null,
      changes jsonb not null,
      transaction_ids text[] not null,
      applied_at timestamptz not null,
      primary key (household_id, id),
      constraint rule_runs_rule_fk foreign key (household_id, rule_id) references rules (household_id, id)
        deferrable
    )`.execute(db)
  await sql`create index rule_runs_rule_idx on rule_runs (household_id, rule_id, applied_at)`.execute(db)
  // "Why does this row look so": the records naming one transaction.
  await sql`create index rule_runs_transaction_idx on rule_runs using gin (transaction_ids)`.execute(db)
  await logChanges(db, 'rule_runs')
}
