import { z } from 'zod'

const Instant = z.string().describe('ISO 8601 instant in UTC.')

/** A webhook subscription as every read shows it: never its secret. */
export const WebhookSubscriptionSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    eventTypes: z.array(z.string()).describe('Event types from docs/events.md, or "*" for all.'),
    status: z.enum(['active', 'paused', 'disabled']),
    disabledReason: z.string().nullable().describe('Why it was disabled, by the server or a member.'),
    previousSecretExpiresAt: Instant.nullable().describe(
      'After a rotation, until when deliveries are also signed with the previous secret.',
    ),
    createdAt: Instant,
    updatedAt: Instant,
  })
  .meta({ id: 'WebhookSubscription' })

/** A subscription with its signing secret, answered once: at creation or rotation. */
export const WebhookSubscriptionWithSecretSchema = WebhookSubscriptionSchema.extend({
  secret: z.string().describe('The `whsec_` signing secret, shown only in this answer.'),
}).meta({ id: 'WebhookSubscriptionWithSecret' })

export const WebhookSubscriptionListSchema = z
  .object({ items: z.array(WebhookSubscriptionSchema) })
  .meta({ id: 'WebhookSubscriptionList' })

/** The body of a create. */
export const CreateWebhookBodySchema = z
  .strictObject({
    url: z.string().describe('An http(s) URL reaching a public address.'),
    eventTypes: z.array(z.string()).min(1),
  })
  .meta({ id: 'CreateWebhookSubscription' })

/** One entry of the delivery log. */
export const WebhookDeliverySchema = z
  .object({
    id: z.string(),
    subscriptionId: z.string(),
    eventId: z.string().describe('The `webhook-id` header; the same on every attempt.'),
    eventType: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.number().int(),
    lastAttemptAt: Instant.nullable(),
    responseStatus: z.number().int().nullable(),
    latencyMs: z.number().int().nullable(),
    responseSnippet: z.string().nullable().describe('The first 500 bytes of the last answer.'),
    error: z.string().nullable(),
    nextAttemptAt: Instant.nullable(),
    createdAt: Instant,
    deliveredAt: Instant.nullable(),
  })
  .meta({ id: 'WebhookDelivery' })

export const WebhookDeliveryListSchema = z
  .object({ items: z.array(WebhookDeliverySchema), nextCursor: z.string().nullable() })
  .meta({ id: 'WebhookDeliveryList' })

/** What a 202 (retry, test) answers: the delivery queued. */
export const QueuedDeliverySchema = z
  .object({ deliveryId: z.string(), status: z.literal('pending'), eventId: z.string().optional() })
  .meta({ id: 'QueuedDelivery' })
