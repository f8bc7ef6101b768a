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
          from (
            -- The earliest due deliveries only (the partial index), so a long queue costs a claim
            -- a bounded read rather than a sort of everything pending.
            select * from webhook_deliveries
            where status = 'pending' and next_attempt_at <= now()
              and (locked_until is null or locked_until < now())
              and not (subscription_id = any(${[...options.busy]}::text[]))
            order by next_attempt_at
            limit ${Math.max(options.limit * options.perSubscription * 4, 200)}
          ) w
          join webhook_subscriptions s on s.household_id = w.household_id and s.id = w.subscription_id
          where s.status = 'active'
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

/** One attempt's outcome, for the delivery it was made for. */
export interface RecordedAttempt {
  delivery: Pick<ClaimedDelivery, 'householdId' | 'id' | 'attempts'>
  outcome: AttemptOutcome
}

/**
 * Records attempts' outcomes and releases their leases in one statement, each only while its
 * sender still holds it (same attempt count, still pending): an attempt whose lease ran out and
 * was claimed again records nothing. Answers the ids recorded.
 */
export async function recordAttempts(
  db: Kysely<Database>,
  attempts: readonly RecordedAttempt[],
): Promise<Set<string>> {
  if (attempts.length === 0) return new Set()
  const col = <T>(f: (a: RecordedAttempt) => T) => attempts.map(f)
  const { rows } = await sql<{ id: string }>`
    update webhook_deliveries d set
      status = v.status, locked_until = null, last_attempt_at = now(),
      response_status = v.response_status, latency_ms = v.latency_ms,
      response_snippet = v.snippet, error = v.error, next_attempt_at = v.next_attempt_at,
      delivered_at = case when v.status = 'succeeded' then now() else d.delivered_at end
    from unnest(
      ${col((a) => a.delivery.householdId)}::text[], ${col((a) => a.delivery.id)}::text[],
      ${col((a) => a.delivery.attempts)}::int[], ${col((a) => a.outcome.status)}::text[],
      ${col((a) => a.outcome.responseStatus)}::int[], ${col((a) => a.outcome.latencyMs)}::int[],
      ${col((a) => a.outcome.snippet)}::text[], ${col((a) => a.outcome.error)}::text[],
      ${col((a) => (a.outcome.status === 'pending' ? (a.outcome.nextAttemptAt ?? new Date()).toISOString() : null))}::timestamptz[]
    ) as v(household_id, id, attempts, status, response_status, latency_ms, snippet, error, next_attempt_at)
    where d.household_id = v.household_id and d.id = v.id and d.attempts = v.attempts and d.status = 'pending'
    returning d.id`.execute(db)
  return new Set(rows.map((r) => r.id))
}
