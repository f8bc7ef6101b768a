import { NoArgsSchema } from '../catalog/fields.ts'
import { EngineError, notFound } from '../errors.ts'
import { defineQuery } from '../mutator/define.ts'
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

/** An opaque cursor over ULID-keyed rows listed newest first: the last row's id. */
export function encodeIdCursor(id: string): string {
  return btoa(`v1|${id}`).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/** Reads `encodeIdCursor`'s cursor back, or 400 INVALID_CURSOR. */
export function decodeIdCursor(cursor: string): string {
  let text = ''
  try {
    text = /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? atob(cursor.replace(/-/g, '+').replace(/_/g, '/')) : ''
  } catch {}
  const match = /^v1\|([0-9A-Z]{26})$/.exec(text)
  if (!match) {
    throw new EngineError(
      400,
      'INVALID_CURSOR',
      'The cursor is not one this list issued; start again without it.',
    )
  }
  return match[1]!
}

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
    const page = rows.slice(0, args.limit)
    const nextCursor = rows.length > args.limit ? encodeIdCursor(page.at(-1)!.id) : null
    return { items: page.map(toDelivery), nextCursor }
  },
})
