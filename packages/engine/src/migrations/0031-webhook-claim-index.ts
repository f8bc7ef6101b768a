import { type Kysely, sql } from 'kysely'

/**
 * Each subscription's pending deliveries in the order they are sent (issue 27), so a claim reads
 * the first few of each subscription from an index rather than sorting everything pending: with
 * ten thousand deliveries queued, a claim sorted them all, every time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index webhook_deliveries_claim_idx
    on webhook_deliveries (subscription_id, next_attempt_at, id)
    where status = 'pending'`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index webhook_deliveries_claim_idx`.execute(db)
}
