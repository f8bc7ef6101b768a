import { type Kysely, sql } from 'kysely'

/**
 * The change log's window: per household, the highest version whose rows were trimmed. A device
 * whose cursor is below it cannot catch up from the log and resets from a snapshot instead.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table sync_log_floors (
      household_id text primary key,
      version bigint not null
    )`.execute(db)
  await sql`create index change_log_created_idx on change_log (created_at)`.execute(db)
}
