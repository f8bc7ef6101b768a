import {
  CreateWebhookBodySchema,
  QueuedDeliverySchema,
  WebhookDeliveryListSchema,
  WebhookSubscriptionListSchema,
  WebhookSubscriptionSchema,
  WebhookSubscriptionWithSecretSchema,
} from '@hearth/contracts'
import { newUlid, operations } from '@hearth/engine'
import { z } from '@hono/zod-openapi'
import { operationRoute, type RouteInput, unknownFields } from '../http/operation-route.ts'
import { mintWebhookSecret, type SecretBox } from '../webhooks/secret-box.ts'
import { resolveTarget, type UrlGuardOptions } from '../webhooks/url-guard.ts'

const tag = 'Webhooks'
const subs = '/households/{householdId}/webhooks/subscriptions'
const one = `${subs}/{id}`
const URL_REFUSED = { 422: ['WEBHOOK_URL_REFUSED'] } as const

/** What the webhook routes need from the server. */
export interface WebhookRouteOptions {
  box: SecretBox
  guard: UrlGuardOptions
}

/** Body and query fields with the path's and the server's own refused rather than overwritten. */
function given(input: RouteInput, made: Record<string, unknown>): Record<string, unknown> {
  const fields = { ...input.query, ...(input.body as Record<string, unknown>) }
  const clash = Object.keys(fields).filter((k) => Object.hasOwn(made, k))
  if (clash.length > 0) throw unknownFields(clash, 'Unknown field: the server or the path sets it.')
  return { ...fields, ...made }
}

/** Checks the URL where it resolves now (422 when it is refused); deliveries check it again. */
async function checkUrl(url: unknown, guard: UrlGuardOptions): Promise<void> {
  // A URL that is not even a string is the operation's schema's to refuse, with the field named.
  if (typeof url === 'string' && URL.canParse(url)) await resolveTarget(url, guard)
}

/** Webhook subscriptions, their delivery log, retries, tests and secret rotation. */
export function webhookRoutes({ box, guard }: WebhookRouteOptions) {
  return [
    operationRoute(operations.webhooks.list, {
      method: 'get',
      path: subs,
      status: 200,
      tag,
      response: WebhookSubscriptionListSchema,
      responseDescription: 'The subscriptions, oldest first, without secrets.',
      present: (items) => ({ items }),
    }),
    operationRoute(operations.webhooks.create, {
      method: 'post',
      path: subs,
      status: 201,
      tag,
      input: CreateWebhookBodySchema,
      response: WebhookSubscriptionWithSecretSchema,
      responseDescription: 'The new subscription with its secret, shown this once.',
      notes:
        'The url must be http(s), carry no credentials, and resolve to a public address (422 `WEBHOOK_URL_REFUSED`). ' +
        '`eventTypes` are types of docs/events.md, or `"*"` for all. See docs/api/webhooks.md.',
      errors: URL_REFUSED,
      async prepare(input) {
        const secret = mintWebhookSecret()
        const args = given(input, { id: newUlid(), secretSealed: box.seal(secret) })
        await checkUrl(args.url, guard)
        return { args, present: (result) => ({ ...(result as object), secret }) }
      },
    }),
    operationRoute(operations.webhooks.update, {
      method: 'patch',
      path: one,
      status: 200,
      tag,
      response: WebhookSubscriptionSchema,
      responseDescription: 'The subscription after the change.',
      notes: '`status` is `active`, `paused` (events are not recorded for it) or `disabled`.',
      errors: URL_REFUSED,
      async prepare(input) {
        const args = given(input, { id: input.params.id })
        await checkUrl(args.url, guard)
        return { args }
      },
    }),
    operationRoute(operations.webhooks.delete, {
      method: 'delete',
      path: one,
      status: 204,
      tag,
      notes: 'Deletes the subscription and every delivery of it.',
    }),
    operationRoute(operations.webhooks.deliveries, {
      method: 'get',
      path: `${one}/deliveries`,
      status: 200,
      tag,
      response: WebhookDeliveryListSchema,
      responseDescription: 'One page of deliveries, newest first.',
      notes: '`limit` (1 to 100) is required; pass `nextCursor` back as `cursor` for the next page.',
    }),
    operationRoute(operations.webhooks.retryDelivery, {
      method: 'post',
      path: `${one}/deliveries/{deliveryId}/retry`,
      status: 202,
      tag,
      params: { id: 'id', deliveryId: 'deliveryId' },
      optionalBody: true,
      input: z.strictObject({}),
      response: QueuedDeliverySchema,
      responseDescription: 'The delivery, queued again with its original payload and event id.',
    }),
    operationRoute(operations.webhooks.rotateSecret, {
      method: 'post',
      path: `${one}/rotate-secret`,
      status: 200,
      tag,
      optionalBody: true,
      input: z.strictObject({}),
      response: WebhookSubscriptionWithSecretSchema,
      responseDescription: 'The subscription with its new secret, shown this once.',
      notes: 'For 24 hours deliveries carry signatures from both the new and the previous secret.',
      prepare(input) {
        const secret = mintWebhookSecret()
        const args = given(input, { id: input.params.id, secretSealed: box.seal(secret) })
        return { args, present: (result) => ({ ...(result as object), secret }) }
      },
    }),
    operationRoute(operations.webhooks.test, {
      method: 'post',
      path: `${one}/test`,
      status: 202,
      tag,
      optionalBody: true,
      input: z.strictObject({}),
      response: QueuedDeliverySchema,
      responseDescription: 'The test delivery, queued; its log entry shows how it went.',
      notes:
        'Sends a `webhook.test` event to this subscription whatever its event types, signed as any other.',
      prepare(input) {
        return { args: given(input, { id: input.params.id, eventId: `evt_${newUlid()}` }) }
      },
    }),
  ]
}
