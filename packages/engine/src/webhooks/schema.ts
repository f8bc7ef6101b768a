import { z } from 'zod'
import { PathIdSchema } from '../catalog/fields.ts'
import { EVENT_TYPES, isEventType } from '../events/catalog.ts'
import { queryLimitSchema } from '../ledger/schema.ts'
import { UlidSchema } from '../shared/schema.ts'

/** The event type that subscribes to every type of the catalog, present and future. */
export const ALL_EVENTS = '*'

/** The statuses a caller may set; `disabled` is also what the server sets after the last failure. */
export const WEBHOOK_STATUSES = ['active', 'paused', 'disabled'] as const

/**
 * An endpoint URL: http or https, no user name or password in it, at most 2,000 characters.
 * Where it points (a private or loopback address) is the server's to check as it resolves it.
 */
export const WebhookUrlSchema = z
  .string()
  .max(2000)
  .superRefine((value, ctx) => {
    let url: URL
    try {
      url = new URL(value)
    } catch {
      ctx.addIssue({ code: 'custom', message: 'Must be an absolute http or https URL.' })
      return
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      ctx.addIssue({ code: 'custom', message: `Only http and https URLs are allowed, not ${url.protocol}` })
    }
    if (url.username !== '' || url.password !== '') {
      ctx.addIssue({ code: 'custom', message: 'The URL must not carry a user name or password.' })
    }
  })

/** Event types from the catalog, or `*` for all; each named once. */
export const EventTypesSchema = z
  .array(z.string())
  .min(1, 'Name at least one event type, or "*" for all.')
  .max(EVENT_TYPES.length + 1)
  .superRefine((types, ctx) => {
    types.forEach((type, i) => {
      if (type !== ALL_EVENTS && !isEventType(type)) {
        ctx.addIssue({
          code: 'custom',
          path: [i],
          message: `Unknown event type "${type}". Valid types: "${ALL_EVENTS}", ${EVENT_TYPES.join(', ')}.`,
        })
      }
    })
  })
  .transform((types) => [...new Set(types)])

/** Creating a subscription; the sealed secret is made by the server, never sent by a caller. */
export const CreateWebhookArgsSchema = z.strictObject({
  id: UlidSchema,
  url: WebhookUrlSchema,
  eventTypes: EventTypesSchema,
  secretSealed: z.string().min(1),
})
export type CreateWebhookArgs = z.output<typeof CreateWebhookArgsSchema>

/** Changing a subscription's url, event types or status. */
export const UpdateWebhookArgsSchema = z.strictObject({
  id: PathIdSchema,
  url: WebhookUrlSchema.optional(),
  eventTypes: EventTypesSchema.optional(),
  status: z.enum(WEBHOOK_STATUSES).optional(),
})
export type UpdateWebhookArgs = z.output<typeof UpdateWebhookArgsSchema>

/** Rotating a subscription's secret: the new one, sealed, and until when the old one still signs. */
export const RotateWebhookSecretArgsSchema = z.strictObject({
  id: PathIdSchema,
  secretSealed: z.string().min(1),
})

/** A subscription's delivery log, newest first. */
export const ListDeliveriesArgsSchema = z.strictObject({
  id: PathIdSchema,
  limit: queryLimitSchema(100),
  cursor: z.string().max(300).optional(),
})

/** One delivery of one subscription. */
export const DeliveryArgsSchema = z.strictObject({ id: PathIdSchema, deliveryId: PathIdSchema })

/** A test delivery: the subscription and the new event id it carries. */
export const TestWebhookArgsSchema = z.strictObject({ id: PathIdSchema, eventId: z.string().min(1) })

/** The system's record that it gave up on a subscription. */
export const DisableWebhookArgsSchema = z.strictObject({
  id: PathIdSchema,
  reason: z.string().min(1).max(500),
})
