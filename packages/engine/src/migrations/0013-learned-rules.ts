import { type Kysely, sql } from 'kysely'

/**
 * Rules the engine learned from how a household categorizes a payee (rules/learn.ts). A learned
 * rule is an ordinary rule; the mark says the engine made it and nobody has changed it since,
 * so learning may still move it to the category the payee's rows now agree on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table rules add column learned boolean not null default false`.execute(db)
}
