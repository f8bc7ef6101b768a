import {
  CreateWebhookBodySchema,
  QueuedDeliverySchema,
  WebhookDeliveryListSchema,
  WebhookSubscriptionListSchema,
  WebhookSubscriptionSchema,
  WebhookSubscriptionWithSecretSchema,
} from '@hearth/contracts'
import { newUlid, operations, parseArgs } from '@hearth/engine'
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
  /** Called as a secret is stored while `box` does not encrypt, so the server can warn. */
  warnUnencrypted?: () => void
}

/** Body and query fields with the path's and the server's own refused rather than overwritten. */
function given(input: RouteInput, made: Record<string, unknown>): Record<string, unknown> {
  const fields = { ...input.query, ...(input.body as Record<string, unknown>) }
  const clash = Object.keys(fields).filter((k) => Object.hasOwn(made, k))
  if (clash.length > 0) throw unknownFields(clash, 'Unknown field: the server or the path sets it.')
  return { ...fields, ...made }
}

/**
 * Checks the URL where it resolves now, once the rest of the arguments pass the operation's
 * schema (a wrong field answers 400 naming it, whatever the URL): text that is no http(s) URL, or
 * one the guard refuses, answers 422 `WEBHOOK_URL_REFUSED` (docs/errors.md); deliveries check it
 * again.
 */
async function checkUrl(
  args: Record<string, unknown>,
  schema: z.ZodType,
  guard: UrlGuardOptions,
): Promise<void> {
  if (typeof args.url !== 'string') return void parseArgs(schema, args)
  // The other fields first, with a URL the schema takes in the url's place: the url itself is
  // the guard's to judge, with 422 rather than the schema's 400.
  parseArgs(schema, { ...args, url: 'https://hearth.invalid/' })
  await resolveTarget(args.url, guard)
}

/** Webhook subscriptions, their delivery log, retries, tests and secret rotation. */
export function webhookRoutes({ box, guard, warnUnencrypted }: WebhookRouteOptions) {
  const seal = (secret: string) => {
    if (!box.encrypted) warnUnencrypted?.()
    return box.seal(secret)
  }
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
      secretField: 'secret',
      async prepare(input) {
        const secret = mintWebhookSecret()
        const args = given(input, { id: newUlid(), secretSealed: seal(secret) })
        await checkUrl(args, operations.webhooks.create.args, guard)
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
        await checkUrl(args, operations.webhooks.update.args, guard)
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
      notes:
        '`limit` is required: from 1, and above 100 it is read as 100. Pass `nextCursor` back as `cursor` for the next page.',
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
      secretField: 'secret',
      prepare(input) {
        const secret = mintWebhookSecret()
        const args = given(input, { id: input.params.id, secretSealed: seal(secret) })
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
