import { type Kysely, sql } from 'kysely'
import type { Database } from '../database.ts'
import { draftFor, type SourceEvent } from './compose.ts'
import { DEFAULT_LARGE_TRANSACTION_CENTS, formatCents, NOTIFICATION_KINDS } from './kinds.ts'

/**
 * Whether an event might notify anyone, read without a write: most events (a small transaction, a
 * renamed tag) make none, and skipping them spares the household a clock tick per event. `cache`,
 * kept for one batch of events, reads each household's smallest threshold once for the batch
 * rather than once per event.
 */
export async function mayNotify(
  db: Kysely<Database>,
  householdId: string,
  event: SourceEvent,
  cache?: Map<string, Promise<string | null>>,
): Promise<boolean> {
  const draft = draftFor(event, formatCents)
  if (!draft || !NOTIFICATION_KINDS[draft.kind].live) return false
  if (draft.amountCents === undefined) return true
  const key = `${householdId}/${draft.kind}`
  let smallest = cache?.get(key)
  if (smallest === undefined) {
    smallest = smallestThreshold(db, householdId, draft.kind)
    cache?.set(key, smallest)
  }
  const threshold = await smallest
  return threshold !== null && draft.amountCents >= BigInt(threshold)
}

async function smallestThreshold(
  db: Kysely<Database>,
  householdId: string,
  kind: string,
): Promise<string | null> {
  // The smallest threshold any member holds: a set one, or the default for one who set none.
  const { rows } = await sql<{ smallest: string | null }>`
    select min(coalesce(p.threshold_cents, ${String(DEFAULT_LARGE_TRANSACTION_CENTS)}::bigint))::text as smallest
    from memberships m
    left join notification_preferences p
      on p.user_id = m.user_id and p.kind = ${kind} and p.enabled
    where m.household_id = ${householdId}`.execute(db)
  return rows[0]?.smallest ?? null
}
