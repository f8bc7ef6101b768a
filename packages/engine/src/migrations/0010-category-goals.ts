import { type Kysely, sql } from 'kysely'

/**
 * A category's budget goal: one nullable jsonb column holding the goal as the API shows it
 * (`catalog/category-goal.ts`); the mutators validate it, the database keeps it an object.
 * The categories change-log trigger carries the new column to devices like any other.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('categories')
    .addColumn('goal', 'jsonb', (c) => c.check(sql`goal is null or jsonb_typeof(goal) = 'object'`))
    .execute()
}
