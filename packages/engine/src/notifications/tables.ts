import type { ColumnType, Selectable } from 'kysely'

type Timestamp = ColumnType<Date, Date | string, Date | string>

/** One thing a member is told about, in one household; synced to that member's devices only. */
export interface NotificationsTable {
  household_id: string
  id: string
  user_id: string
  kind: string
  title: string
  body: string
  subject: ColumnType<Record<string, unknown>, string, string>
  event_id: string
  created_at: Timestamp
  read_at: Timestamp | null
  dismissed_at: Timestamp | null
}

/** Whether a user wants a kind on a channel; rows are seeded on the first read. */
export interface NotificationPreferencesTable {
  user_id: string
  kind: string
  channel: string
  enabled: boolean
  lock_screen_details: boolean
  /** For `large_transaction`: the smallest absolute amount, in cents, that is large. */
  threshold_cents: ColumnType<
    string | null,
    string | number | bigint | null | undefined,
    string | number | bigint | null
  >
  updated_at: Timestamp
}

/** A browser's Web Push subscription for one user. */
export interface PushSubscriptionsTable {
  user_id: string
  id: string
  endpoint: string
  p256dh: string
  auth: string
  created_at: Timestamp
}

/** A notification still to send on a channel beyond the feed (email, push). */
export interface NotificationSendsTable {
  household_id: string
  notification_id: string
  channel: string
  status: ColumnType<'pending' | 'sent' | 'failed', 'pending' | 'sent' | 'failed' | undefined, string>
  attempts: ColumnType<number, number | undefined, number>
  next_attempt_at: Timestamp
  locked_until: Timestamp | null
  error: string | null
  sent_at: Timestamp | null
}

export type NotificationRow = Selectable<NotificationsTable>

/** The notifications domain's tables. */
export interface NotificationTables {
  notifications: NotificationsTable
  notification_preferences: NotificationPreferencesTable
  push_subscriptions: PushSubscriptionsTable
  notification_sends: NotificationSendsTable
}
