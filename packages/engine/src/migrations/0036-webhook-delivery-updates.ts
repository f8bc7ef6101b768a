import { type Kysely, sql } from 'kysely'

/**
 * Cheaper writes to the webhook delivery queue (issue 27). Each delivery is inserted, leased and
 * recorded: three writes of one row within seconds. The due-time index is no longer read (claims
 * read each subscription's queue from `webhook_deliveries_claim_idx`, 0031), so it goes, and pages
 * are filled half, so a lease (which changes no indexed column) is a heap-only update on the same
 * page rather than a new entry in every index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index webhook_deliveries_due_idx`.execute(db)
  await sql`alter table webhook_deliveries set (fillfactor = 50)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table webhook_deliveries reset (fillfactor)`.execute(db)
  await sql`
    create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at)
    where status = 'pending'`.execute(db)
}
