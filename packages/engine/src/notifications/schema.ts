import { z } from 'zod'
import { PathIdSchema } from '../catalog/fields.ts'
import { QueryBooleanSchema, queryLimitSchema } from '../ledger/schema.ts'
import { NOTIFICATION_CHANNELS, NOTIFICATION_KIND_NAMES } from './kinds.ts'

/** One notification, by its id. */
export const NotificationIdArgsSchema = z.strictObject({ id: PathIdSchema })

/** The caller's feed: unread and undismissed unless asked, newest first. */
export const ListNotificationsArgsSchema = z.strictObject({
  includeRead: QueryBooleanSchema.optional(),
  includeDismissed: QueryBooleanSchema.optional(),
  limit: queryLimitSchema(100).optional(),
  cursor: z.string().max(300).optional(),
})
export type ListNotificationsArgs = z.output<typeof ListNotificationsArgsSchema>

/** One preference to upsert. */
export const PreferenceInputSchema = z
  .strictObject({
    kind: z.enum(NOTIFICATION_KIND_NAMES as [string, ...string[]]),
    channel: z.enum(NOTIFICATION_CHANNELS),
    enabled: z.boolean(),
    lockScreenDetails: z.boolean().optional(),
    thresholdCents: z
      .union([z.number().int().min(0).max(9e12), z.string().regex(/^\d{1,13}$/)])
      .transform((v) => String(v))
      .optional(),
  })
  .superRefine((p, ctx) => {
    if (p.lockScreenDetails !== undefined && p.channel !== 'push') {
      ctx.addIssue({
        code: 'custom',
        path: ['lockScreenDetails'],
        message: 'lockScreenDetails applies to the push channel only.',
      })
    }
    if (p.thresholdCents !== undefined && p.kind !== 'large_transaction') {
      ctx.addIssue({
        code: 'custom',
        path: ['thresholdCents'],
        message: 'thresholdCents applies to large_transaction only.',
      })
    }
  })

/** Upserting preferences: `items`, each a (kind, channel) with what to set. */
export const UpdatePreferencesArgsSchema = z.strictObject({
  items: z.array(PreferenceInputSchema).min(1).max(100),
})

/** The event a notification is generated from, as the outbox holds it, and the channels the server can send on. */
export const GenerateNotificationsArgsSchema = z.strictObject({
  event: z.object({
    id: z.string().min(1),
    type: z.string(),
    occurredAt: z.string(),
    actorUserId: z.string().nullable().optional(),
    data: z.record(z.string(), z.unknown()),
  }),
  channels: z.array(z.enum(NOTIFICATION_CHANNELS)),
})
