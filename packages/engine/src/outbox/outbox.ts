import { type Kysely, sql } from 'kysely'
import type { Database } from '../database.ts'
import { PLAN_EACH_TIME } from '../store/prepared-statements.ts'

/** A claimed outbox item, leased to one worker until `lockedUntil`. */
export interface OutboxItem {
  id: number
  householdId: string | null
  topic: string
  payload: Record<string, unknown>
  attempts: number
}

/** After this many failed attempts an item is parked as failed for an operator to look at. */
export const OUTBOX_MAX_ATTEMPTS = 10

/**
 * Leases up to `limit` due items. `FOR UPDATE SKIP LOCKED` lets many workers (and many server
 * instances) claim disjoint sets; the lease lets a crashed worker's items be claimed again.
 */
export async function claimOutbox(
  db: Kysely<Database>,
  options: { limit: number; leaseMs: number; topics?: string[] },
): Promise<OutboxItem[]> {
  // A worker with no topics (the sender when no channel is configured) has nothing to claim:
  // asking would read every pending event each time it looked.
  if (options.topics?.length === 0) return []
  // The topic filter only when there is one, rather than `($topics is null or …)` (see trimChangeLog).
  // Planned with its values each time, as the webhook claim: a plan made on an empty outbox is
  // not the one for a thousand pending events.
  const topics = options.topics === undefined ? sql`true` : sql`topic = any(${options.topics}::text[])`
  const result = await sql<{
    id: number
    household_id: string | null
    topic: string
    payload: Record<string, unknown>
    attempts: number
  }>`
    update outbox set locked_until = now() + ${`${options.leaseMs} milliseconds`}::interval, attempts = attempts + 1
      ${sql.raw(PLAN_EACH_TIME)}
    where id in (
      select id from outbox
      where status = 'pending' and available_at <= now()
        and (locked_until is null or locked_until < now())
        and ${topics}
      order by id
      limit ${options.limit}
      for update skip locked
    )
    returning id, household_id, topic, payload, attempts`.execute(db)
  return result.rows
    .map((r) => ({
      id: r.id,
      householdId: r.household_id,
      topic: r.topic,
      payload: r.payload,
      attempts: r.attempts,
    }))
    .sort((a, b) => a.id - b.id)
}

/** Marks handled items done, in one statement however many a batch handled. */
export async function completeOutbox(db: Kysely<Database>, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return
  await db
    .updateTable('outbox')
    .set({ status: 'done', processed_at: sql`now()`, locked_until: null, last_error: null })
    .where('id', 'in', ids)
    .execute()
}

/** Schedules a retry with exponential backoff and jitter, or parks the item after the last attempt. */
export async function failOutbox(db: Kysely<Database>, item: OutboxItem, error: string): Promise<void> {
  const parked = item.attempts >= OUTBOX_MAX_ATTEMPTS
  await db
    .updateTable('outbox')
    .set({
      status: parked ? 'failed' : 'pending',
      last_error: error.slice(0, 2000),
      locked_until: null,
      available_at: sql`now() + ${`${retryDelayMs(item.attempts)} milliseconds`}::interval`,
    })
    .where('id', '=', item.id)
    .execute()
}

/** Backoff for the nth attempt: 2^n seconds capped at an hour, with up to 50% jitter. */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(2 ** attempt * 1000, 3_600_000)
  return Math.round(base * (0.5 + random() * 0.5))
}
