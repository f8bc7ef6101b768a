import {
  NotificationListSchema,
  NotificationPreferencesSchema,
  NotificationSchema,
  PushSubscriptionSchema,
  UpdateNotificationPreferencesBodySchema,
} from '@hearth/contracts'
import { NOTIFICATION_CHANNELS, type NotificationChannel, operations } from '@hearth/engine'
import { z } from '@hono/zod-openapi'
import { operationRoute } from '../http/operation-route.ts'

const tag = 'Notifications'

/** Which channels this server can send on (the feed always, email and push when configured), and push's key. */
export interface AvailableChannels {
  channels: readonly NotificationChannel[]
  vapidPublicKey?: string
}

/** The caller's notification feed and preferences (not under a household path). */
export function notificationRoutes({ channels, vapidPublicKey }: AvailableChannels) {
  const withChannels = (items: unknown) => ({
    items,
    channels: NOTIFICATION_CHANNELS.map((channel) => ({
      channel,
      available: channels.includes(channel),
      ...(channel === 'push' && vapidPublicKey && { vapidPublicKey }),
    })),
  })
  return [
    operationRoute(operations.notificationFeed.list, {
      method: 'get',
      path: '/notifications',
      status: 200,
      tag,
      response: NotificationListSchema,
      responseDescription: 'One page of your notifications, newest first.',
      notes:
        'Unread and undismissed only unless `includeRead=true` or `includeDismissed=true`; `limit` from 1 (default 50; above 100 it is read as 100).',
    }),
    operationRoute(operations.notificationFeed.markAllRead, {
      method: 'post',
      path: '/notifications/mark-all-read',
      status: 200,
      tag,
      optionalBody: true,
      input: z.strictObject({}),
      response: z.object({ marked: z.number().int() }).meta({ id: 'MarkedRead' }),
      responseDescription: 'How many notifications became read.',
    }),
    operationRoute(operations.notificationPreferences.list, {
      method: 'get',
      path: '/notifications/preferences',
      status: 200,
      tag,
      response: NotificationPreferencesSchema,
      responseDescription:
        'Your preferences, kind by kind and channel by channel, and which channels this server can send on.',
      notes:
        'The defaults are written on the first call. See docs/api/notifications.md for the kinds and channels.',
      present: withChannels,
    }),
    operationRoute(operations.notificationPreferences.update, {
      method: 'put',
      path: '/notifications/preferences',
      status: 200,
      tag,
      input: UpdateNotificationPreferencesBodySchema,
      response: NotificationPreferencesSchema,
      responseDescription: 'All your preferences after the change.',
      notes:
        '`lockScreenDetails` is accepted on the `push` channel only; `thresholdCents` on `large_transaction` only.',
      present: withChannels,
    }),
    operationRoute(operations.pushSubscriptions.create, {
      method: 'post',
      path: '/users/me/push-subscriptions',
      status: 201,
      tag,
      clientIds: ['id'],
      response: PushSubscriptionSchema,
      responseDescription: 'The registered subscription (its keys are not shown again).',
      notes:
        "The body is what a browser's `PushSubscription.toJSON()` gives (`endpoint`, `keys.p256dh`, `keys.auth`), subscribed with the `vapidPublicKey` that the preferences show for `push`. Registering the same endpoint again replaces its keys.",
    }),
    operationRoute(operations.pushSubscriptions.delete, {
      method: 'delete',
      path: '/users/me/push-subscriptions/{id}',
      status: 204,
      tag,
    }),
    operationRoute(operations.notificationFeed.read, {
      method: 'post',
      path: '/notifications/{id}/read',
      status: 200,
      tag,
      optionalBody: true,
      input: z.strictObject({}),
      response: NotificationSchema,
      responseDescription: 'The notification, read.',
      notes: 'Idempotent: reading it again keeps the first `readAt`.',
    }),
    operationRoute(operations.notificationFeed.dismiss, {
      method: 'delete',
      path: '/notifications/{id}',
      status: 204,
      tag,
      notes: 'Dismisses it: it leaves the default feed (`includeDismissed=true` still lists it).',
    }),
  ]
}
