import type { NotificationRow } from './tables.ts'

/** A notification as the API and the SDK show it. */
export interface Notification {
  id: string
  householdId: string
  kind: string
  title: string
  body: string
  /** What it concerns, by `type` (docs/api/notifications.md, The feed): a transaction, a budget category and month, a webhook subscription, a recurrence, an account and day, a refused change. */
  subject: Record<string, unknown>
  eventId: string
  createdAt: string
  readAt: string | null
  dismissedAt: string | null
}

function iso(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString()
}

/** The API's view of a notification row. */
export function toNotification(row: NotificationRow): Notification {
  return {
    id: row.id,
    householdId: row.household_id,
    kind: row.kind,
    title: row.title,
    body: row.body,
    subject: row.subject,
    eventId: row.event_id,
    createdAt: iso(row.created_at)!,
    readAt: iso(row.read_at),
    dismissedAt: iso(row.dismissed_at),
  }
}
