import type { Kysely } from 'kysely'
import type { Database } from '../database.ts'
import { type Notification, toNotification } from './model.ts'

/** What sending one notification on a channel needs: the words, the address, the member's wishes. */
export interface NotificationSend {
  notification: Notification
  email: string | null
  lockScreenDetails: boolean
  pushSubscriptions: { id: string; endpoint: string; p256dh: string; auth: string }[]
}

/** Forgets a browser's push subscription its push service says is gone (404 or 410). */
export async function forgetPushSubscription(db: Kysely<Database>, subscriptionId: string): Promise<void> {
  await db.deleteFrom('push_subscriptions').where('id', '=', subscriptionId).execute()
}

/**
 * Reads a queued send: null when the notification is gone, its member has left the household, or
 * the member switched the channel off since (nothing is sent then).
 */
export async function loadNotificationSend(
  db: Kysely<Database>,
  householdId: string,
  notificationId: string,
  channel: string,
): Promise<NotificationSend | null> {
  const row = await db
    .selectFrom('notifications as n')
    .innerJoin('memberships as m', (j) =>
      j.onRef('m.household_id', '=', 'n.household_id').onRef('m.user_id', '=', 'n.user_id'),
    )
    .innerJoin('users as u', 'u.id', 'n.user_id')
    .leftJoin('notification_preferences as p', (j) =>
      j.onRef('p.user_id', '=', 'n.user_id').onRef('p.kind', '=', 'n.kind').on('p.channel', '=', channel),
    )
    .selectAll('n')
    .select(['u.email', 'p.enabled', 'p.lock_screen_details'])
    .where('n.household_id', '=', householdId)
    .where('n.id', '=', notificationId)
    .executeTakeFirst()
  if (!row || row.enabled === false) return null
  const pushSubscriptions =
    channel === 'push'
      ? await db
          .selectFrom('push_subscriptions')
          .select(['id', 'endpoint', 'p256dh', 'auth'])
          .where('user_id', '=', row.user_id)
          .execute()
      : []
  return {
    notification: toNotification(row),
    email: row.email,
    lockScreenDetails: row.lock_screen_details ?? false,
    pushSubscriptions,
  }
}
