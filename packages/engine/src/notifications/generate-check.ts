import { type Kysely, sql } from 'kysely'
import type { Database } from '../database.ts'
import { draftFor, type SourceEvent } from './compose.ts'
import { DEFAULT_LARGE_TRANSACTION_CENTS, formatCents, NOTIFICATION_KINDS } from './kinds.ts'

/**
 * Whether an event might notify anyone, read without a write: most events (a small transaction, a
 * renamed tag) make none, and skipping them spares the household a clock tick per event.
 */
export async function mayNotify(
  db: Kysely<Database>,
  householdId: string,
  event: SourceEvent,
): Promise<boolean> {
  const draft = draftFor(event, formatCents)
  if (!draft || !NOTIFICATION_KINDS[draft.kind].live) return false
  if (draft.amountCents === undefined) return true
  // The smallest threshold any member holds: a set one, or the default for one who set none.
  const { rows } = await sql<{ smallest: string | null }>`
    select min(coalesce(p.threshold_cents, ${String(DEFAULT_LARGE_TRANSACTION_CENTS)}::bigint))::text as smallest
    from memberships m
    left join notification_preferences p
      on p.user_id = m.user_id and p.kind = ${draft.kind} and p.enabled
    where m.household_id = ${householdId}`.execute(db)
  const smallest = rows[0]?.smallest
  return smallest !== null && smallest !== undefined && draft.amountCents >= BigInt(smallest)
}
