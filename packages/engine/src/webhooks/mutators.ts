import type { Transaction } from 'kysely'
import { IdArgsSchema } from '../catalog/fields.ts'
import type { Database } from '../database.ts'
import { notFound } from '../errors.ts'
import { defineMutator } from '../mutator/define.ts'
import { newUlid } from '../shared/ulid.ts'
import { toSubscription, type WebhookSubscription, webhookBody } from './model.ts'
import {
  CreateWebhookArgsSchema,
  DeliveryArgsSchema,
  DisableWebhookArgsSchema,
  RotateWebhookSecretArgsSchema,
  TestWebhookArgsSchema,
  UpdateWebhookArgsSchema,
} from './schema.ts'

/** After a rotation the old secret keeps signing, beside the new one, for this long. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 3_600_000

/** The subscription, or 404 when it is not this household's. */
export async function requireSubscription(tx: Transaction<Database>, householdId: string, id: string) {
  const row = await tx
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('id', '=', id)
    .executeTakeFirst()
  if (!row) throw notFound('Webhook subscription', id)
  return row
}

/** Registers an endpoint for some event types; only the server holds its secret, sealed. */
export const createWebhook = defineMutator({
  audience: 'server',
  description: 'Creates a webhook subscription and returns its signing secret once.',
  scope: 'write:webhooks',
  args: CreateWebhookArgsSchema,
  async run(tx, args, ctx): Promise<WebhookSubscription> {
    const row = await tx
      .insertInto('webhook_subscriptions')
      .values({
        household_id: ctx.householdId,
        id: args.id,
        url: args.url,
        event_types: args.eventTypes,
        secret_sealed: args.secretSealed,
        created_by: ctx.userId,
        created_at: ctx.now,
        updated_at: ctx.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    return toSubscription(row)
  },
})

/** Changes url, event types or status; setting `active` again clears why it was disabled. */
export const updateWebhook = defineMutator({
  audience: 'server',
  description: 'Changes a webhook subscription’s url, event types or status.',
  scope: 'write:webhooks',
  args: UpdateWebhookArgsSchema,
  async run(tx, args, ctx): Promise<WebhookSubscription> {
    await requireSubscription(tx, ctx.householdId, args.id)
    const row = await tx
      .updateTable('webhook_subscriptions')
      .set({
        ...(args.url !== undefined && { url: args.url }),
        ...(args.eventTypes !== undefined && { event_types: args.eventTypes }),
        ...(args.status !== undefined && {
          status: args.status,
          disabled_reason: args.status === 'disabled' ? 'Disabled by a member.' : null,
        }),
        updated_at: ctx.now,
      })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    return toSubscription(row)
  },
})

/** Deletes a subscription; its deliveries go with it (the foreign key cascades). */
export const deleteWebhook = defineMutator({
  audience: 'server',
  description: 'Deletes a webhook subscription and its delivery log.',
  scope: 'write:webhooks',
  args: IdArgsSchema,
  async run(tx, args, ctx) {
    await requireSubscription(tx, ctx.householdId, args.id)
    await tx
      .deleteFrom('webhook_subscriptions')
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .execute()
    return { id: args.id }
  },
})

/** Replaces the secret; the old one keeps signing beside it for 24 hours. */
export const rotateWebhookSecret = defineMutator({
  audience: 'server',
  description: 'Rotates a webhook subscription’s signing secret and returns the new one once.',
  scope: 'write:webhooks',
  args: RotateWebhookSecretArgsSchema,
  async run(tx, args, ctx): Promise<WebhookSubscription> {
    const current = await requireSubscription(tx, ctx.householdId, args.id)
    const row = await tx
      .updateTable('webhook_subscriptions')
      .set({
        secret_sealed: args.secretSealed,
        previous_secret_sealed: current.secret_sealed,
        previous_secret_until: new Date(ctx.now.getTime() + PREVIOUS_SECRET_GRACE_MS),
        updated_at: ctx.now,
      })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    return toSubscription(row)
  },
})

/** Queues a past delivery again with its original body, as a fresh round of attempts. */
export const retryWebhookDelivery = defineMutator({
  audience: 'server',
  description: 'Queues a past delivery again with its original payload.',
  scope: 'write:webhooks',
  args: DeliveryArgsSchema,
  async run(tx, args, ctx) {
    await requireSubscription(tx, ctx.householdId, args.id)
    const row = await tx
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', attempts: 0, next_attempt_at: ctx.now, locked_until: null })
      .where('household_id', '=', ctx.householdId)
      .where('subscription_id', '=', args.id)
      .where('id', '=', args.deliveryId)
      .returning('id')
      .executeTakeFirst()
    if (!row) throw notFound('Delivery', args.deliveryId)
    return { deliveryId: row.id, status: 'pending' as const }
  },
})

/** Queues a signed `webhook.test` delivery to one subscription, whatever its event types. */
export const sendWebhookTest = defineMutator({
  audience: 'server',
  description: 'Sends a signed test delivery through the real delivery path.',
  scope: 'write:webhooks',
  args: TestWebhookArgsSchema,
  async run(tx, args, ctx) {
    await requireSubscription(tx, ctx.householdId, args.id)
    const id = newUlid()
    await tx
      .insertInto('webhook_deliveries')
      .values({
        household_id: ctx.householdId,
        id,
        subscription_id: args.id,
        event_id: args.eventId,
        event_type: 'webhook.test',
        body: webhookBody('webhook.test', ctx.now.toISOString(), {
          householdId: ctx.householdId,
          subscriptionId: args.id,
        }),
        next_attempt_at: ctx.now,
        created_at: ctx.now,
      })
      .execute()
    return { deliveryId: id, eventId: args.eventId, status: 'pending' as const }
  },
})

/** The server gives up on a subscription: it stops sending and tells the household why. */
export const disableWebhook = defineMutator({
  audience: 'system',
  description: 'Disables a webhook subscription after its receiver failed for good.',
  scope: null,
  args: DisableWebhookArgsSchema,
  async run(tx, args, ctx) {
    const row = await tx
      .updateTable('webhook_subscriptions')
      .set({ status: 'disabled', disabled_reason: args.reason, updated_at: ctx.now })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .where('status', '!=', 'disabled')
      .returningAll()
      .executeTakeFirst()
    // Already disabled (by a member, or by another server): nothing to announce twice.
    if (!row) return { disabled: false }
    ctx.emit('webhook.disabled', { subscription: toSubscription(row), reason: args.reason })
    return { disabled: true }
  },
})
