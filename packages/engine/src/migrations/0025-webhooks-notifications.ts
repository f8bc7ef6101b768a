import { type Kysely, sql } from 'kysely'
import { logChanges } from './change-log-trigger.ts'

/**
 * Webhooks and notifications. Subscriptions and their deliveries are server-only: a device never
 * holds a signing secret, and the delivery log is the server's record of what it sent. A delivery
 * is one event for one subscription (unique, so fanning an event out twice sends it once), and is
 * its own queue: `next_attempt_at` and the lease `locked_until` let several servers claim disjoint
 * deliveries with `FOR UPDATE SKIP LOCKED`. Notifications are household rows kept per member and
 * synced to that member's devices only; preferences and push subscriptions belong to the user.
 * Email and push sends ride the outbox (topic `notification.send`), queued with the notification.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table webhook_subscriptions (
      household_id text not null references households (id),
      id text not null,
      url text not null,
      event_types text[] not null,
      status text not null default 'active' check (status in ('active', 'paused', 'disabled')),
      disabled_reason text,
      secret_sealed text not null,
      previous_secret_sealed text,
      previous_secret_until timestamptz,
      created_by text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (household_id, id)
    )`.execute(db)
  await sql`
    create table webhook_deliveries (
      household_id text not null,
      id text not null,
      subscription_id text not null,
      event_id text not null,
      event_type text not null,
      body text not null,
      status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
      attempts integer not null default 0,
      next_attempt_at timestamptz,
      locked_until timestamptz,
      last_attempt_at timestamptz,
      response_status integer,
      latency_ms integer,
      response_snippet text,
      error text,
      created_at timestamptz not null,
      delivered_at timestamptz,
      primary key (household_id, id),
      unique (subscription_id, event_id),
      foreign key (household_id, subscription_id) references webhook_subscriptions (household_id, id)
        on delete cascade
    )`.execute(db)
  await sql`
    create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at)
    where status = 'pending'`.execute(db)
  await sql`
    create index webhook_deliveries_log_idx on webhook_deliveries (household_id, subscription_id, created_at)`.execute(
    db,
  )

  await sql`
    create table notifications (
      household_id text not null references households (id),
      id text not null,
      user_id text not null references users (id),
      kind text not null,
      title text not null,
      body text not null,
      subject jsonb not null,
      event_id text not null,
      created_at timestamptz not null,
      read_at timestamptz,
      dismissed_at timestamptz,
      primary key (household_id, id),
      unique (event_id, user_id, kind)
    )`.execute(db)
  await sql`create index notifications_feed_idx on notifications (user_id, created_at desc, id desc)`.execute(
    db,
  )
  await logChanges(db, 'notifications')

  await sql`
    create table notification_preferences (
      user_id text not null references users (id),
      kind text not null,
      channel text not null,
      enabled boolean not null,
      lock_screen_details boolean not null default false,
      threshold_cents bigint,
      updated_at timestamptz not null,
      primary key (user_id, kind, channel)
    )`.execute(db)
  await sql`
    create table push_subscriptions (
      user_id text not null references users (id),
      id text not null,
      endpoint text not null,
      p256dh text not null,
      auth text not null,
      created_at timestamptz not null,
      primary key (user_id, id),
      unique (user_id, endpoint)
    )`.execute(db)
}
