import { type Kysely, sql, type Transaction } from 'kysely'
import type { Database } from '../database.ts'
import { executeDeferred } from '../store/deferred-writes.ts'

/** Stored keys older than this are forgotten; a later request with the same key runs afresh. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000

/** One request's claim on an Idempotency-Key: whose it is and what request it was. */
export interface IdempotencyClaim {
  userId: string
  key: string
  /** A hash of the method, path and body: another request under the same key is refused. */
  fingerprint: string
}

/** The answer a request gave, stored so a retry gets it again byte for byte. */
export interface StoredAnswer {
  status: number
  contentType: string | null
  body: string | null
}

/** What to do with a request that carries an Idempotency-Key. */
export type IdempotencyDecision =
  | { kind: 'proceed' }
  | ({ kind: 'replay' } & StoredAnswer)
  | { kind: 'mismatch' }

const expiredBefore = () => sql<Date>`now() - ${`${IDEMPOTENCY_RETENTION_MS} milliseconds`}::interval`

/**
 * Claims a key inside the transaction of the write it guards. The claim is the stored answer's
 * row itself, so it commits with the write or not at all: a crash can leave no half-claimed key,
 * and a retry can never run the write twice. A concurrent request with the same key waits on the
 * row until the first commits, then replays its answer.
 */
export async function claimIdempotencyKey(
  tx: Transaction<Database>,
  claim: IdempotencyClaim,
): Promise<IdempotencyDecision> {
  const inserted = await tx
    .insertInto('idempotency_keys')
    .values({
      user_id: claim.userId,
      key: claim.key,
      fingerprint: claim.fingerprint,
      state: 'running',
      locked_until: sql<Date>`now()`,
    })
    .onConflict((oc) => oc.columns(['user_id', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst()
  if (inserted) return { kind: 'proceed' }
  const row = await tx
    .selectFrom('idempotency_keys')
    .select(['fingerprint', 'status', 'content_type', 'body'])
    .select(sql<boolean>`created_at < ${expiredBefore()}`.as('is_expired'))
    .where('user_id', '=', claim.userId)
    .where('key', '=', claim.key)
    .forUpdate()
    .executeTakeFirstOrThrow()
  if (row.is_expired) {
    await tx
      .updateTable('idempotency_keys')
      .set({ fingerprint: claim.fingerprint, state: 'running', status: null, content_type: null, body: null })
      .set(sql`created_at = now()` as never)
      .where('user_id', '=', claim.userId)
      .where('key', '=', claim.key)
      .execute()
    return { kind: 'proceed' }
  }
  if (row.fingerprint !== claim.fingerprint) return { kind: 'mismatch' }
  return { kind: 'replay', status: row.status ?? 200, contentType: row.content_type, body: row.body }
}

/** Stores the answer of a claimed key, in the same transaction as the claim and the write. */
export async function storeIdempotentAnswer(
  tx: Transaction<Database>,
  claim: IdempotencyClaim,
  answer: StoredAnswer,
): Promise<void> {
  await executeDeferred(
    tx,
    tx
      .updateTable('idempotency_keys')
      .set({ state: 'done', status: answer.status, content_type: answer.contentType, body: answer.body })
      .where('user_id', '=', claim.userId)
      .where('key', '=', claim.key),
  )
}

/**
 * Stores a refusal (a 4xx the write's rollback left behind) for replay, unless a concurrent
 * request with the same key already stored its own answer; returns what is stored now.
 */
export async function storeIdempotentRefusal(
  db: Kysely<Database>,
  claim: IdempotencyClaim,
  answer: StoredAnswer,
): Promise<void> {
  await db
    .insertInto('idempotency_keys')
    .values({
      user_id: claim.userId,
      key: claim.key,
      fingerprint: claim.fingerprint,
      state: 'done',
      locked_until: sql<Date>`now()`,
      status: answer.status,
      content_type: answer.contentType,
      body: answer.body,
    })
    .onConflict((oc) => oc.columns(['user_id', 'key']).doNothing())
    .execute()
}

/** Deletes keys past the retention window; returns how many. */
export async function purgeIdempotencyKeys(db: Kysely<Database>): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', expiredBefore())
    .executeTakeFirst()
  return Number(result.numDeletedRows ?? 0)
}
