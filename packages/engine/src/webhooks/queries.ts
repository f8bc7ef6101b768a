import { NoArgsSchema } from '../catalog/fields.ts'
import { notFound } from '../errors.ts'
import { defineQuery } from '../mutator/define.ts'
import { decodeIdCursor, encodeIdCursor, pageOf } from '../shared/cursor.ts'
import { toDelivery, toSubscription, type WebhookDelivery, type WebhookSubscription } from './model.ts'
import { ListDeliveriesArgsSchema } from './schema.ts'

/** The household's subscriptions, oldest first; never a secret. */
export const listWebhooks = defineQuery({
  audience: 'server',
  description: 'Lists the household’s webhook subscriptions, without their secrets.',
  scope: 'read:webhooks',
  args: NoArgsSchema,
  async run(db, _args, ctx): Promise<WebhookSubscription[]> {
    const rows = await db
      .selectFrom('webhook_subscriptions')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .orderBy('id')
      .execute()
    return rows.map(toSubscription)
  },
})

/** A subscription's delivery log, newest first, with each delivery's latest attempt. */
export const listWebhookDeliveries = defineQuery({
  audience: 'server',
  description: 'Lists a webhook subscription’s recent deliveries, newest first.',
  scope: 'read:webhooks',
  args: ListDeliveriesArgsSchema,
  async run(db, args, ctx): Promise<{ items: WebhookDelivery[]; nextCursor: string | null }> {
    const sub = await db
      .selectFrom('webhook_subscriptions')
      .select('id')
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .executeTakeFirst()
    if (!sub) throw notFound('Webhook subscription', args.id)
    let query = db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .where('subscription_id', '=', args.id)
    if (args.cursor) query = query.where('id', '<', decodeIdCursor(args.cursor))
    const rows = await query
      .orderBy('id', 'desc')
      .limit(args.limit + 1)
      .execute()
    const { page, nextCursor } = pageOf(rows, args.limit, (last) => encodeIdCursor(last.id))
    return { items: page.map(toDelivery), nextCursor }
  },
})
