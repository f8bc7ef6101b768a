import { type Kysely, sql } from 'kysely'
import type { Database } from '../database.ts'

/** Stored keys older than this are forgotten; a later request with the same key runs afresh. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000

/** What to do with a request that carries an Idempotency-Key. */
export type IdempotencyDecision =
  | { kind: 'proceed' }
  | { kind: 'replay'; status: number; contentType: string | null; body: string | null }
  | { kind: 'mismatch' }
  | { kind: 'in-progress' }

/**
 * Claims a key for one request. A fresh key, an expired one, or one whose first run died
 * (lease over) proceeds; a finished one replays; a different request under the same key is a
 * mismatch; a live first run makes the retry wait its turn (in-progress).
 */
export async function beginIdempotent(
  db: Kysely<Database>,
  claim: { userId: string; key: string; fingerprint: string; leaseMs: number },
): Promise<IdempotencyDecision> {
  const lease = sql<Date>`now() + ${`${claim.leaseMs} milliseconds`}::interval`
  const expired = sql<Date>`now() - ${`${IDEMPOTENCY_RETENTION_MS} milliseconds`}::interval`
  return db.transaction().execute(async (tx) => {
    const inserted = await tx
      .insertInto('idempotency_keys')
      .values({
        user_id: claim.userId,
        key: claim.key,
        fingerprint: claim.fingerprint,
        state: 'running',
        locked_until: lease,
      })
      .onConflict((oc) => oc.columns(['user_id', 'key']).doNothing())
      .returning('key')
      .executeTakeFirst()
    if (inserted) return { kind: 'proceed' } as const

    const row = await tx
      .selectFrom('idempotency_keys')
      .select(['fingerprint', 'state', 'status', 'content_type', 'body'])
      .select(sql<boolean>`created_at < ${expired}`.as('is_expired'))
      .select(sql<boolean>`locked_until < now()`.as('lease_over'))
      .where('user_id', '=', claim.userId)
      .where('key', '=', claim.key)
      .forUpdate()
      .executeTakeFirstOrThrow()

    const restart = async () => {
      await tx
        .updateTable('idempotency_keys')
        .set({
          fingerprint: claim.fingerprint,
          state: 'running',
          locked_until: lease,
          status: null,
          content_type: null,
          body: null,
          created_at: sql`now()`,
        } as never)
        .where('user_id', '=', claim.userId)
        .where('key', '=', claim.key)
        .execute()
      return { kind: 'proceed' } as const
    }

    if (row.is_expired) return restart()
    if (row.fingerprint !== claim.fingerprint) return { kind: 'mismatch' } as const
    if (row.state === 'done') {
      return {
        kind: 'replay',
        status: row.status ?? 200,
        contentType: row.content_type,
        body: row.body,
      } as const
    }
    if (row.lease_over) return restart()
    return { kind: 'in-progress' } as const
  })
}

/** Stores the response of a finished request for replay. */
export async function finishIdempotent(
  db: Kysely<Database>,
  done: { userId: string; key: string; status: number; contentType: string | null; body: string },
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ state: 'done', status: done.status, content_type: done.contentType, body: done.body })
    .where('user_id', '=', done.userId)
    .where('key', '=', done.key)
    .execute()
}

/** Forgets a key whose request failed on the server's side, so the client's retry runs again. */
export async function releaseIdempotent(db: Kysely<Database>, userId: string, key: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('user_id', '=', userId).where('key', '=', key).execute()
}

/** Deletes keys past the retention window; returns how many. */
export async function purgeIdempotencyKeys(db: Kysely<Database>): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', sql<Date>`now() - ${`${IDEMPOTENCY_RETENTION_MS} milliseconds`}::interval`)
    .executeTakeFirst()
  return Number(result.numDeletedRows ?? 0)
}
