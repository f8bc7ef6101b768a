import { z } from 'zod'
import { PathIdSchema } from '../catalog/fields.ts'
import { notFound } from '../errors.ts'
import { defineUserMutator } from '../mutator/define.ts'
import { UlidSchema } from '../shared/schema.ts'

/** A browser's Web Push subscription, as `PushSubscription.toJSON()` gives it. */
export const CreatePushSubscriptionArgsSchema = z.strictObject({
  id: UlidSchema,
  endpoint: z.url({ protocol: /^https?$/ }).max(2000),
  /**
   * When the push service will end the subscription, as the browser's `toJSON()` includes it
   * (usually null): accepted and not kept, since a push the service refuses with 404 or 410
   * removes the subscription anyway.
   */
  expirationTime: z.number().int().nonnegative().nullable().optional(),
  keys: z.strictObject({
    p256dh: z.string().regex(/^[A-Za-z0-9_-]{80,100}={0,2}$/, 'Must be the base64url P-256 public key.'),
    auth: z.string().regex(/^[A-Za-z0-9_-]{16,24}={0,2}$/, 'Must be the base64url auth secret.'),
  }),
})

/** A push subscription as the API shows it (its keys stay on the server). */
export interface PushSubscription {
  id: string
  endpoint: string
  createdAt: string
}

/** Registers the caller's browser for push; the same endpoint again replaces its keys. */
export const createPushSubscription = defineUserMutator({
  audience: 'server',
  description: 'Registers a browser of yours for Web Push notifications.',
  scope: 'write:notifications',
  args: CreatePushSubscriptionArgsSchema,
  async run(tx, args, ctx): Promise<PushSubscription> {
    const row = await tx
      .insertInto('push_subscriptions')
      .values({
        user_id: ctx.userId,
        id: args.id,
        endpoint: args.endpoint,
        p256dh: args.keys.p256dh,
        auth: args.keys.auth,
        created_at: ctx.now,
      })
      .onConflict((oc) =>
        oc.columns(['user_id', 'endpoint']).doUpdateSet({ p256dh: args.keys.p256dh, auth: args.keys.auth }),
      )
      .returningAll()
      .executeTakeFirstOrThrow()
    return { id: row.id, endpoint: row.endpoint, createdAt: new Date(row.created_at).toISOString() }
  },
})

/** Forgets one of the caller's push subscriptions. */
export const deletePushSubscription = defineUserMutator({
  audience: 'server',
  description: 'Removes one of your browsers from Web Push notifications.',
  scope: 'write:notifications',
  args: z.strictObject({ id: PathIdSchema }),
  async run(tx, args, ctx) {
    const row = await tx
      .deleteFrom('push_subscriptions')
      .where('user_id', '=', ctx.userId)
      .where('id', '=', args.id)
      .returning('id')
      .executeTakeFirst()
    if (!row) throw notFound('Push subscription', args.id)
    return { id: args.id }
  },
})
