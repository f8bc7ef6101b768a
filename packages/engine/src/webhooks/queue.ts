import { type Kysely, sql } from 'kysely'
import type { Database } from '../database.ts'
import type { EventEnvelope } from '../events/envelope.ts'
import { newUlid } from '../shared/ulid.ts'
import { webhookBody } from './model.ts'
import { ALL_EVENTS } from './schema.ts'

/** A delivery leased to one sender, with what it needs to sign and send it. */
export interface ClaimedDelivery {
  householdId: string
  id: string
  subscriptionId: string
  eventId: string
  body: string
  /** Attempts so far, this one included. */
  attempts: number
  url: string
  secretSealed: string
  previousSecretSealed: string | null
}

/**
 * Records one delivery per active subscription of the event's household that wants its type.
 * Unique per (subscription, event): fanning one event out again (a retried outbox item) adds none.
 */
export async function fanOutEvent(db: Kysely<Database>, event: EventEnvelope): Promise<number> {
  if (event.householdId === null) return 0
  const subs = await db
    .selectFrom('webhook_subscriptions')
    .select('id')
    .where('household_id', '=', event.householdId)
    .where('status', '=', 'active')
    .where(sql<boolean>`(${event.type} = any(event_types) or ${ALL_EVENTS} = any(event_types))`)
    .execute()
  if (subs.length === 0) return 0
  const body = webhookBody(event.type, event.occurredAt, event.data)
  const now = new Date()
  const { numInsertedOrUpdatedRows } = await db
    .insertInto('webhook_deliveries')
    .values(
      subs.map((s) => ({
        household_id: event.householdId!,
        id: newUlid(),
        subscription_id: s.id,
        event_id: event.id,
        event_type: event.type,
        body,
        next_attempt_at: now,
        created_at: now,
      })),
    )
    .onConflict((oc) => oc.columns(['subscription_id', 'event_id']).doNothing())
    .executeTakeFirst()
  return Number(numInsertedOrUpdatedRows ?? 0)
}

/**
 * Leases up to `limit` due deliveries of active subscriptions, at most `perSubscription` of any
 * one subscription, skipping `busy` ones (those this sender already has enough of in flight), so
 * a hanging receiver holds a few slots and never the rest. `FOR UPDATE SKIP LOCKED` gives two
 * servers disjoint sets; the lease (longer than an attempt's timeout) gives a dead server's
 * deliveries back.
 */
export async function claimDeliveries(
  db: Kysely<Database>,
  options: { limit: number; perSubscription: number; leaseMs: number; busy: readonly string[] },
): Promise<ClaimedDelivery[]> {
  const { rows } = await sql<{
    household_id: string
    id: string
    subscription_id: string
    event_id: string
    body: string
    attempts: number
  }>`
    update webhook_deliveries d set locked_until = now() + ${`${options.leaseMs} milliseconds`}::interval,
      attempts = d.attempts + 1
    where (d.household_id, d.id) in (
      select x.household_id, x.id from webhook_deliveries x
      where (x.household_id, x.id) in (
        select c.household_id, c.id from (
          select w.household_id, w.id, w.next_attempt_at,
            row_number() over (partition by w.subscription_id order by w.next_attempt_at, w.id) as n
          from webhook_deliveries w
          join webhook_subscriptions s on s.household_id = w.household_id and s.id = w.subscription_id
          where w.status = 'pending' and w.next_attempt_at <= now()
            and (w.locked_until is null or w.locked_until < now())
            and s.status = 'active'
            and not (w.subscription_id = any(${[...options.busy]}::text[]))
        ) c
        where c.n <= ${options.perSubscription}
        order by c.next_attempt_at, c.id
        limit ${options.limit}
      )
      and x.status = 'pending' and (x.locked_until is null or x.locked_until < now())
      for update skip locked
    )
    returning d.household_id, d.id, d.subscription_id, d.event_id, d.body, d.attempts`.execute(db)
  if (rows.length === 0) return []
  const subs = await db
    .selectFrom('webhook_subscriptions')
    .select(['household_id', 'id', 'url', 'secret_sealed', 'previous_secret_sealed', 'previous_secret_until'])
    .where(
      'id',
      'in',
      rows.map((r) => r.subscription_id),
    )
    .execute()
  const byId = new Map(subs.map((s) => [`${s.household_id}/${s.id}`, s]))
  const now = Date.now()
  return rows.flatMap((r) => {
    const s = byId.get(`${r.household_id}/${r.subscription_id}`)
    if (!s) return []
    const previousLive = s.previous_secret_until !== null && new Date(s.previous_secret_until).getTime() > now
    return [
      {
        householdId: r.household_id,
        id: r.id,
        subscriptionId: r.subscription_id,
        eventId: r.event_id,
        body: r.body,
        attempts: r.attempts,
        url: s.url,
        secretSealed: s.secret_sealed,
        previousSecretSealed: previousLive ? s.previous_secret_sealed : null,
      },
    ]
  })
}

/** How one attempt ended, and what happens next. */
export interface AttemptOutcome {
  responseStatus: number | null
  latencyMs: number
  snippet: string | null
  error: string | null
  /** `succeeded`, `failed` for good, or `pending` again at `nextAttemptAt`. */
  status: 'succeeded' | 'failed' | 'pending'
  nextAttemptAt?: Date
}

/**
 * Records an attempt's outcome and releases the lease, only while this sender still holds it:
 * an attempt whose lease ran out (another sender has it now) records nothing.
 */
export async function recordAttempt(
  db: Kysely<Database>,
  delivery: Pick<ClaimedDelivery, 'householdId' | 'id' | 'attempts'>,
  outcome: AttemptOutcome,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({
      status: outcome.status,
      locked_until: null,
      last_attempt_at: sql`now()`,
      response_status: outcome.responseStatus,
      latency_ms: outcome.latencyMs,
      response_snippet: outcome.snippet,
      error: outcome.error,
      next_attempt_at: outcome.status === 'pending' ? (outcome.nextAttemptAt ?? new Date()) : null,
      ...(outcome.status === 'succeeded' && { delivered_at: sql`now()` }),
    })
    .where('household_id', '=', delivery.householdId)
    .where('id', '=', delivery.id)
    .where('attempts', '=', delivery.attempts)
    .where('status', '=', 'pending')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}
