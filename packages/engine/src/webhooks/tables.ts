import type { ColumnType, Selectable } from 'kysely'

type Timestamp = ColumnType<Date, Date | string, Date | string>

/** What a subscription does with new events: `active` sends, `paused` and `disabled` hold them. */
export type WebhookStatus = 'active' | 'paused' | 'disabled'

/** Where a delivery stands: waiting for an attempt, delivered (a 2xx), or given up on. */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed'

/** A household's endpoint and the event types it wants; its secrets are sealed by the server. */
export interface WebhookSubscriptionsTable {
  household_id: string
  id: string
  url: string
  event_types: string[]
  status: ColumnType<WebhookStatus, WebhookStatus | undefined, WebhookStatus>
  disabled_reason: string | null
  secret_sealed: string
  previous_secret_sealed: string | null
  previous_secret_until: Timestamp | null
  created_by: string
  created_at: Timestamp
  updated_at: Timestamp
}

/** One event for one subscription: its exact body, and the outcome of its latest attempt. */
export interface WebhookDeliveriesTable {
  household_id: string
  id: string
  subscription_id: string
  event_id: string
  event_type: string
  body: string
  status: ColumnType<DeliveryStatus, DeliveryStatus | undefined, DeliveryStatus>
  attempts: ColumnType<number, number | undefined, number>
  next_attempt_at: Timestamp | null
  locked_until: Timestamp | null
  last_attempt_at: Timestamp | null
  response_status: number | null
  latency_ms: number | null
  response_snippet: string | null
  error: string | null
  created_at: Timestamp
  delivered_at: Timestamp | null
}

export type WebhookSubscriptionRow = Selectable<WebhookSubscriptionsTable>
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>

/** The webhooks domain's tables. */
export interface WebhookTables {
  webhook_subscriptions: WebhookSubscriptionsTable
  webhook_deliveries: WebhookDeliveriesTable
}
