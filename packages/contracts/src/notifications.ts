import { z } from 'zod'

const Instant = z.string().describe('ISO 8601 instant in UTC.')

/** One notification of the caller's feed. */
export const NotificationSchema = z
  .object({
    id: z.string(),
    householdId: z.string().describe('The household it is about.'),
    kind: z.string(),
    title: z.string(),
    body: z.string(),
    subject: z
      .record(z.string(), z.unknown())
      .describe(
        'What it concerns, by `type`: a transaction, a budget category and month, a webhook subscription, a recurrence, an account and day, a refused change.',
      ),
    eventId: z.string(),
    createdAt: Instant,
    readAt: Instant.nullable(),
    dismissedAt: Instant.nullable(),
  })
  .meta({ id: 'Notification' })

export const NotificationListSchema = z
  .object({ items: z.array(NotificationSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'NotificationList' })

const Preference = z
  .object({
    kind: z.string(),
    channel: z.enum(['in_app', 'email', 'push']),
    enabled: z.boolean(),
    lockScreenDetails: z.boolean(),
    thresholdCents: z.string().nullable(),
  })
  .meta({ id: 'NotificationPreference' })

export const NotificationPreferencesSchema = z
  .object({
    items: z.array(Preference),
    channels: z.array(
      z.object({
        channel: z.string(),
        available: z.boolean(),
        vapidPublicKey: z
          .string()
          .optional()
          .describe('For push: the application server key a browser subscribes with.'),
      }),
    ),
  })
  .meta({ id: 'NotificationPreferences' })

export const UpdateNotificationPreferencesBodySchema = z
  .strictObject({
    items: z.array(
      z.strictObject({
        kind: z.string(),
        channel: z.enum(['in_app', 'email', 'push']),
        enabled: z.boolean(),
        lockScreenDetails: z.boolean().optional(),
        thresholdCents: z.union([z.number().int(), z.string()]).optional(),
      }),
    ),
  })
  .meta({ id: 'UpdateNotificationPreferences' })

/** A registered browser push subscription. */
export const PushSubscriptionSchema = z
  .object({ id: z.string(), endpoint: z.string(), createdAt: Instant })
  .meta({ id: 'PushSubscription' })
