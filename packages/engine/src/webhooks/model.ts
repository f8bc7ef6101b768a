import type { DeliveryStatus, WebhookDeliveryRow, WebhookStatus, WebhookSubscriptionRow } from './tables.ts'

/** A subscription as the API shows it: never its secret. */
export interface WebhookSubscription {
  id: string
  url: string
  eventTypes: string[]
  status: WebhookStatus
  disabledReason: string | null
  /** Until when deliveries also carry a signature from the secret before the last rotation. */
  previousSecretExpiresAt: string | null
  createdAt: string
  updatedAt: string
}

/** One entry of the delivery log: the event, where it stands, and its latest attempt. */
export interface WebhookDelivery {
  id: string
  subscriptionId: string
  eventId: string
  eventType: string
  status: DeliveryStatus
  attempts: number
  lastAttemptAt: string | null
  responseStatus: number | null
  latencyMs: number | null
  responseSnippet: string | null
  error: string | null
  nextAttemptAt: string | null
  createdAt: string
  deliveredAt: string | null
}

function iso(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString()
}

/** The API's view of a subscription row. */
export function toSubscription(row: WebhookSubscriptionRow): WebhookSubscription {
  return {
    id: row.id,
    url: row.url,
    eventTypes: row.event_types,
    status: row.status,
    disabledReason: row.disabled_reason,
    previousSecretExpiresAt: iso(row.previous_secret_until),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  }
}

/** The API's view of a delivery row (its body stays on the server). */
export function toDelivery(row: WebhookDeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    subscriptionId: row.subscription_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    lastAttemptAt: iso(row.last_attempt_at),
    responseStatus: row.response_status,
    latencyMs: row.latency_ms,
    responseSnippet: row.response_snippet,
    error: row.error,
    nextAttemptAt: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    createdAt: iso(row.created_at)!,
    deliveredAt: iso(row.delivered_at),
  }
}

/** The Standard Webhooks body of an event: `{type, timestamp, data}`, thin and stable. */
export function webhookBody(type: string, occurredAt: string, data: unknown): string {
  return JSON.stringify({ type, timestamp: occurredAt, data })
}
