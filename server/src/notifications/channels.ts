import {
  forgetPushSubscription,
  loadNotificationSend,
  type NotificationChannel,
  type OutboxItem,
  type Store,
} from '@hearth/engine'
import nodemailer from 'nodemailer'
import webpush from 'web-push'
import { resolveTarget, type UrlGuardOptions } from '../webhooks/url-guard.ts'

/** How this server sends beyond the feed; a channel left unset is unavailable. */
export interface NotificationChannelConfig {
  /** `HEARTH_SMTP_URL`, such as `smtp://user:pass@mail.example.com:587`. */
  smtpUrl?: string
  /** `HEARTH_SMTP_FROM`. */
  smtpFrom: string
  /** `HEARTH_VAPID_PUBLIC_KEY`, `HEARTH_VAPID_PRIVATE_KEY`, `HEARTH_VAPID_SUBJECT`. */
  vapid?: { publicKey: string; privateKey: string; subject: string }
}

/** The channels a configuration makes available: the feed always. */
export function availableChannels(config: NotificationChannelConfig): NotificationChannel[] {
  return ['in_app', ...(config.smtpUrl ? ['email' as const] : []), ...(config.vapid ? ['push' as const] : [])]
}

/**
 * The outbox handler that sends one notification by email or Web Push. A failure throws, so the
 * outbox retries it with backoff; a send the member no longer wants (channel off, left the
 * household, no address) is done without sending.
 */
export function notificationSender(store: Store, config: NotificationChannelConfig, guard: UrlGuardOptions) {
  const mailer = config.smtpUrl ? nodemailer.createTransport(config.smtpUrl) : null
  return async function sendNotification(item: OutboxItem): Promise<void> {
    const { householdId, notificationId } = item.payload as Record<string, string>
    const channel = item.topic.slice('notification.'.length)
    const send = await loadNotificationSend(store.db, householdId!, notificationId!, channel!)
    if (!send) return
    const n = send.notification
    if (channel === 'email' && mailer && send.email) {
      await mailer.sendMail({
        from: config.smtpFrom,
        to: send.email,
        subject: n.title,
        text: `${n.body}\n\nHousehold ${n.householdId}, notification ${n.id}.`,
        headers: { 'X-Hearth-Notification': n.id },
      })
    }
    if (channel === 'push' && config.vapid) {
      // The lock screen shows the words only when the member asked for them there.
      const payload = JSON.stringify({
        id: n.id,
        householdId: n.householdId,
        kind: n.kind,
        subject: n.subject,
        ...(send.lockScreenDetails ? { title: n.title, body: n.body } : { title: 'New Hearth notification' }),
      })
      for (const sub of send.pushSubscriptions) {
        // A push endpoint is a URL the server posts to: the webhook guard applies to it as well.
        await resolveTarget(sub.endpoint, guard)
        try {
          await webpush.sendNotification(
            { endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } },
            payload,
            {
              vapidDetails: config.vapid,
              TTL: 86_400,
              timeout: 10_000,
            },
          )
        } catch (error) {
          // The push service says this browser unsubscribed or the subscription expired: it is
          // forgotten, and the member's other browsers still get theirs. Anything else is retried.
          if (
            !(error instanceof webpush.WebPushError) ||
            (error.statusCode !== 404 && error.statusCode !== 410)
          )
            throw error
          await forgetPushSubscription(store.db, sub.id)
        }
      }
    }
  }
}
