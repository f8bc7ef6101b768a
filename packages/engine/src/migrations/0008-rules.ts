import { type Kysely, sql } from 'kysely'
import { logRowChanges } from './change-log-trigger.ts'

/**
 * Classification rules and the record of each rule changing a transaction. Both sync to devices
 * (a device classifies offline with the same rules) and both log their changes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('rules')
    .addColumn('household_id', 'text', (c) => c.notNull().references('households.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull().check(sql`char_length(name) between 1 and 200`))
    .addColumn('predicate', 'jsonb', (c) => c.notNull())
    .addColumn('action', 'jsonb', (c) => c.notNull())
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0).check(sql`priority >= 0`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('deleted_at', 'timestamptz')
    .addPrimaryKeyConstraint('rules_pk', ['household_id', 'id'])
    .execute()
  await sql`create index rules_order_idx on rules (household_id, priority, created_at, id) where deleted_at is null`.execute(
    db,
  )
  await logRowChanges(db, 'rules')

  await db.schema
    .createTable('rule_applications')
    .addColumn('household_id', 'text', (c) => c.notNull().references('households.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('rule_id', 'text', (c) => c.notNull())
    .addColumn('transaction_id', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull().check(sql`trigger in ('auto', 'manual')`))
    .addColumn('changes', 'jsonb', (c) => c.notNull())
    .addColumn('applied_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('rule_applications_pk', ['household_id', 'id'])
    .addForeignKeyConstraint(
      'rule_applications_rule_fk',
      ['household_id', 'rule_id'],
      'rules',
      ['household_id', 'id'],
      (fk) => fk.deferrable(),
    )
    .addForeignKeyConstraint(
      'rule_applications_transaction_fk',
      ['household_id', 'transaction_id'],
      'transactions',
      ['household_id', 'id'],
      (fk) => fk.deferrable(),
    )
    .execute()
  await db.schema
    .createIndex('rule_applications_transaction_idx')
    .on('rule_applications')
    .columns(['household_id', 'transaction_id', 'applied_at'])
    .execute()
  await db.schema
    .createIndex('rule_applications_rule_idx')
    .on('rule_applications')
    .columns(['household_id', 'rule_id', 'applied_at'])
    .execute()
  await logRowChanges(db, 'rule_applications')
}
