import type { Hearth } from '@hearth/client'
import type { ServerAccess } from '../../server-calls.ts'
import { NotificationFeed } from './notification-feed.tsx'
import { NotificationPreferences, usePreferences } from './notification-preferences.tsx'
import { PushSection } from './push-section.tsx'

/**
 * Notifications: the feed from the replica (read and dismiss, offline too), the preferences of
 * kinds by channels, and Web Push on this browser. The preferences and push are the server's.
 */
export function NotificationsScreen(props: { hearth: Hearth; access: ServerAccess }) {
  const prefs = usePreferences(props.access)
  return (
    <section aria-labelledby="notifications-title">
      <header class="screen-header">
        <h1 id="notifications-title">Notifications</h1>
      </header>
      <NotificationFeed hearth={props.hearth} />
      <section class="card" aria-labelledby="preferences-title">
        <h2 id="preferences-title" class="card-title">
          What reaches you, and how
        </h2>
        <NotificationPreferences access={props.access} prefs={prefs} />
      </section>
      <PushSection access={props.access} push={prefs.data?.channels.find((c) => c.channel === 'push')} />
    </section>
  )
}
