import { type Kysely, sql } from 'kysely'

/**
 * A worker claims the oldest due items (`order by id limit n`). The pending index was ordered by
 * `available_at`, so every claim read and sorted all pending items: after a bulk import of
 * 50,000 transactions (one event each), each claim of 20 took about 250 ms, and on the embedded
 * store it held the server's only thread that long, once a second, until the backlog drained
 * (bench:sync's A-to-B p99 of 150-250 ms). Ordered by id, a claim reads the first due items and
 * stops.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index outbox_pending_idx`.execute(db)
  await sql`create index outbox_pending_idx on outbox (id) where status = 'pending'`.execute(db)
}
