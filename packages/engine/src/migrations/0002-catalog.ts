import { type Kysely, sql } from 'kysely'
import { logRowChanges } from './change-log-trigger.ts'

const nameCheck = sql`char_length(name) between 1 and 200`

/** Category groups, categories, payees, tags and flags, each keyed (household_id, id). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('category_groups')
    .addColumn('household_id', 'text', (c) => c.notNull().references('households.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull().check(nameCheck))
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('hidden', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('is_income', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('deleted_at', 'timestamptz')
    .addPrimaryKeyConstraint('category_groups_pk', ['household_id', 'id'])
    .execute()

  await db.schema
    .createTable('categories')
    .addColumn('household_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('group_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull().check(nameCheck))
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('hidden', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('deleted_at', 'timestamptz')
    .addPrimaryKeyConstraint('categories_pk', ['household_id', 'id'])
    .addForeignKeyConstraint('categories_group_fk', ['household_id', 'group_id'], 'category_groups', [
      'household_id',
      'id',
    ])
    .execute()
  await db.schema
    .createIndex('categories_group_idx')
    .on('categories')
    .columns(['household_id', 'group_id'])
    .execute()

  await db.schema
    .createTable('payees')
    .addColumn('household_id', 'text', (c) => c.notNull().references('households.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull().check(nameCheck))
    .addColumn('normalized_name', 'text', (c) => c.notNull())
    .addColumn('category_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('deleted_at', 'timestamptz')
    .addPrimaryKeyConstraint('payees_pk', ['household_id', 'id'])
    .addForeignKeyConstraint('payees_category_fk', ['household_id', 'category_id'], 'categories', [
      'household_id',
      'id',
    ])
    .execute()
  await db.schema
    .createIndex('payees_normalized_name_idx')
    .on('payees')
    .columns(['household_id', 'normalized_name'])
    .execute()

  await db.schema
    .createTable('tags')
    .addColumn('household_id', 'text', (c) => c.notNull().references('households.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull().check(nameCheck))
    .addColumn('color', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('tags_pk', ['household_id', 'id'])
    .execute()
  await sql`create unique index tags_name_unique on tags (household_id, lower(name))`.execute(db)

  await db.schema
    .createTable('flags')
    .addColumn('household_id', 'text', (c) => c.notNull().references('households.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull().check(nameCheck))
    .addColumn('color', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('flags_pk', ['household_id', 'id'])
    .execute()

  for (const table of ['category_groups', 'categories', 'payees', 'tags', 'flags']) {
    await logRowChanges(db, table)
  }
}
