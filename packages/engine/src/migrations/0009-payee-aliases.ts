import { type Kysely, sql } from 'kysely'
import { logRowChanges } from './change-log-trigger.ts'

/**
 * Payee aliases, the record of each merge (so an unmerge moves exactly those rows back) and the
 * categories a household refused for a payee's suggestions. No unique index on an alias's
 * normalized name: the mutators keep it unique among live aliases, as they do for payee names,
 * so a device applying a delta never trips on a transient duplicate.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('payee_aliases')
    .addColumn('household_id', 'text', (c) => c.notNull().references('households.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('payee_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull().check(sql`char_length(name) between 1 and 200`))
    .addColumn('normalized_name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('deleted_at', 'timestamptz')
    .addPrimaryKeyConstraint('payee_aliases_pk', ['household_id', 'id'])
    .addForeignKeyConstraint('payee_aliases_payee_fk', ['household_id', 'payee_id'], 'payees', [
      'household_id',
      'id',
    ])
    .execute()
  await db.schema
    .createIndex('payee_aliases_normalized_name_idx')
    .on('payee_aliases')
    .columns(['household_id', 'normalized_name'])
    .execute()
  await db.schema
    .createIndex('payee_aliases_payee_idx')
    .on('payee_aliases')
    .columns(['household_id', 'payee_id'])
    .execute()

  await db.schema
    .createTable('payee_merges')
    .addColumn('household_id', 'text', (c) => c.notNull().references('households.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('source_payee_id', 'text', (c) => c.notNull())
    .addColumn('target_payee_id', 'text', (c) => c.notNull())
    .addColumn('moved', 'jsonb', (c) => c.notNull())
    .addColumn('source_updated_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('unmerged_at', 'timestamptz')
    .addPrimaryKeyConstraint('payee_merges_pk', ['household_id', 'id'])
    .addForeignKeyConstraint('payee_merges_source_fk', ['household_id', 'source_payee_id'], 'payees', [
      'household_id',
      'id',
    ])
    .addForeignKeyConstraint('payee_merges_target_fk', ['household_id', 'target_payee_id'], 'payees', [
      'household_id',
      'id',
    ])
    .execute()
  await db.schema
    .createIndex('payee_merges_source_idx')
    .on('payee_merges')
    .columns(['household_id', 'source_payee_id'])
    .execute()

  await db.schema
    .createTable('payee_category_rejections')
    .addColumn('household_id', 'text', (c) => c.notNull().references('households.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('payee_id', 'text', (c) => c.notNull())
    .addColumn('category_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('payee_category_rejections_pk', ['household_id', 'id'])
    .execute()
  await db.schema
    .createIndex('payee_category_rejections_payee_idx')
    .on('payee_category_rejections')
    .columns(['household_id', 'payee_id'])
    .execute()

  for (const table of ['payee_aliases', 'payee_merges', 'payee_category_rejections']) {
    await logRowChanges(db, table)
  }
}
