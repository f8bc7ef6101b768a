import { type Kysely, sql } from 'kysely'
import type { Database } from '../database.ts'
import type { EventEnvelope } from '../events/envelope.ts'
import { monotonicUlids } from '../shared/ulid.ts'
import { PLAN_EACH_TIME } from '../store/prepared-statements.ts'
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

/** Delivery ids increase in the order deliveries are made, within one millisecond too. */
const deliveryId = monotonicUlids()

/**
 * Records one delivery per active subscription of the event's household that wants its type.
 * Unique per (subscription, event): fanning one event out again (a retried outbox item) adds none.
 */
export async function fanOutEvent(db: Kysely<Database>, event: EventEnvelope): Promise<number> {
  return fanOutEvents(db, [event])
}

/**
 * `fanOutEvent` for a batch of events at once: one read of the subscriptions of the batch's
 * households and one insert for every delivery, rather than two statements per event. The
 * deliveries' ids grow in the order the events came (the outbox's), so each subscription's queue
 * keeps the events' order. Answers how many deliveries were new.
 */
export async function fanOutEvents(db: Kysely<Database>, events: readonly EventEnvelope[]): Promise<number> {
  const households = [...new Set(events.flatMap((e) => (e.householdId === null ? [] : [e.householdId])))]
  if (households.length === 0) return 0
  const subs = await db
    .selectFrom('webhook_subscriptions')
    .select(['household_id', 'id', 'event_types'])
    .where('household_id', 'in', households)
    .where('status', '=', 'active')
    .orderBy('id')
    .execute()
  if (subs.length === 0) return 0
  const now = new Date()
  const rows = events.flatMap((event) => {
    const wanting = subs.filter(
      (s) =>
        s.household_id === event.householdId &&
        (s.event_types.includes(event.type) || s.event_types.includes(ALL_EVENTS)),
    )
    if (wanting.length === 0) return []
    const body = webhookBody(event.type, event.occurredAt, event.data)
    return wanting.map((s) => ({
      household_id: event.householdId!,
      id: deliveryId(),
      subscription_id: s.id,
      event_id: event.id,
      event_type: event.type,
      body,
    }))
  })
  let inserted = 0
  // Columns as arrays (eight values a statement, whatever its rows), in chunks that leave the
  // store to other statements between them.
  for (let i = 0; i < rows.length; i += 1000) {
    const chunk = rows.slice(i, i + 1000)
    const col = <T>(f: (r: (typeof rows)[number]) => T) => chunk.map(f)
    const result = await sql`
      insert into webhook_deliveries
        (household_id, id, subscription_id, event_id, event_type, body, next_attempt_at, created_at)
      select v.household_id, v.id, v.subscription_id, v.event_id, v.event_type, v.body, ${now}::timestamptz, ${now}::timestamptz
      from unnest(
        ${col((r) => r.household_id)}::text[], ${col((r) => r.id)}::text[],
        ${col((r) => r.subscription_id)}::text[], ${col((r) => r.event_id)}::text[],
        ${col((r) => r.event_type)}::text[], ${col((r) => r.body)}::text[]
      ) as v(household_id, id, subscription_id, event_id, event_type, body)
      on conflict (subscription_id, event_id) do nothing`.execute(db)
    inserted += Number(result.numAffectedRows ?? 0)
  }
  return inserted
}

/**
 * Leases up to `limit` due deliveries of active subscriptions, at most `perSubscription` of any
 * one subscription (or the room `rooms` gives it: a sender holds more of a subscription that
 * answers fast), skipping `busy` ones (those this sender already holds enough of), so a hanging
 * receiver holds a few slots and never the rest. `FOR UPDATE SKIP LOCKED` gives two servers
 * disjoint sets; the lease (longer than an attempt's timeout) gives a dead server's deliveries
 * back. One statement reads what signing and sending need too (the subscription's URL and
 * secrets), in the order the deliveries are due.
 */
export async function claimDeliveries(
  db: Kysely<Database>,
  options: {
    limit: number
    perSubscription: number
    leaseMs: number
    busy: readonly string[]
    /** Subscriptions' own caps in place of `perSubscription`. */
    rooms?: ReadonlyMap<string, number>
  },
): Promise<ClaimedDelivery[]> {
  const rooms = [...(options.rooms ?? [])].filter(([id]) => !options.busy.includes(id))
  const { rows } = await sql<{
    household_id: string
    id: string
    subscription_id: string
    event_id: string
    body: string
    attempts: number
    next_attempt_at: Date | string
    url: string
    secret_sealed: string
    previous_secret_sealed: string | null
  }>`
    update webhook_deliveries d set locked_until = now() + ${`${options.leaseMs} milliseconds`}::interval,
      attempts = d.attempts + 1 ${sql.raw(PLAN_EACH_TIME)}
    from webhook_subscriptions s
    where s.household_id = d.household_id and s.id = d.subscription_id
    and (d.household_id, d.id) in (
      select x.household_id, x.id from webhook_deliveries x
      where (x.household_id, x.id) in (
        -- Each active subscription's first due deliveries, read in order from its index
        -- (webhook_deliveries_claim_idx), then the earliest of them all.
        select c.household_id, c.id from webhook_subscriptions s
        left join unnest(${rooms.map(([id]) => id)}::text[], ${rooms.map(([, n]) => n)}::int[]) as r(id, room)
          on r.id = s.id
        cross join lateral (
          select w.household_id, w.id, w.next_attempt_at from webhook_deliveries w
          where w.subscription_id = s.id and w.household_id = s.household_id
            and w.status = 'pending' and w.next_attempt_at <= now()
            and (w.locked_until is null or w.locked_until < now())
          order by w.next_attempt_at, w.id
          limit coalesce(r.room, ${options.perSubscription})
        ) c
        where s.status = 'active' and not (s.id = any(${[...options.busy]}::text[]))
        order by c.next_attempt_at, c.id
        limit ${options.limit}
      )
      and x.status = 'pending' and (x.locked_until is null or x.locked_until < now())
      for update of x skip locked
    )
    returning d.household_id, d.id, d.subscription_id, d.event_id, d.body, d.attempts, d.next_attempt_at,
      s.url, s.secret_sealed,
      case when s.previous_secret_until > now() then s.previous_secret_sealed end as previous_secret_sealed`.execute(
    db,
  )
  // In the order they are due (RETURNING keeps none), so each subscription's go out in order.
  const due = (r: (typeof rows)[number]) => new Date(r.next_attempt_at).getTime()
  rows.sort((a, b) => due(a) - due(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  return rows.map((r) => ({
    householdId: r.household_id,
    id: r.id,
    subscriptionId: r.subscription_id,
    eventId: r.event_id,
    body: r.body,
    attempts: r.attempts,
    url: r.url,
    secretSealed: r.secret_sealed,
    previousSecretSealed: r.previous_secret_sealed,
  }))
}

/**
 * Gives back leased deliveries that were never attempted (their sender is stopping, or they
 * waited too long for a slot): unlocked, with the attempt their claim counted taken back, each
 * only while that claim still holds it.
 */
export async function releaseDeliveries(
  db: Kysely<Database>,
  items: readonly Pick<ClaimedDelivery, 'householdId' | 'id' | 'attempts'>[],
): Promise<void> {
  if (items.length === 0) return
  await sql`
    update webhook_deliveries d set locked_until = null, attempts = d.attempts - 1 ${sql.raw(PLAN_EACH_TIME)}
    from unnest(
      ${items.map((i) => i.householdId)}::text[], ${items.map((i) => i.id)}::text[],
      ${items.map((i) => i.attempts)}::int[]
    ) as v(household_id, id, attempts)
    where d.household_id = v.household_id and d.id = v.id and d.attempts = v.attempts and d.status = 'pending'`.execute(
    db,
  )
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
    update webhook_deliveries d set ${sql.raw(PLAN_EACH_TIME)}
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
