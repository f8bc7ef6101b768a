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

export type NotificationRow = Selectable<NotificationsTable>

/** The notifications domain's tables. */
export interface NotificationTables {
  notifications: NotificationsTable
  notification_preferences: NotificationPreferencesTable
  push_subscriptions: PushSubscriptionsTable
}
