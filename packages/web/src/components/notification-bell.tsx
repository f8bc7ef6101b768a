import type { Hearth } from '@hearth/client'
import { useWatch } from '../hooks.ts'
import { linkTo } from '../router.ts'

/**
 * The bell in the top bar: the member's unread notifications in this household, live from the
 * replica (they sync to the member's own devices, so the count holds offline too), linking to the feed.
 */
export function NotificationBell(props: { hearth: Hearth | null; current: boolean }) {
  const { data } = useWatch(props.hearth, 'notifications.list', {})
  const unread = data?.filter((n) => n.readAt === null).length ?? 0
  const words = unread === 0 ? 'Notifications' : `Notifications, ${unread} unread`
  return (
    <a
      {...linkTo('/notifications')}
      class="notification-bell"
      aria-current={props.current ? 'page' : undefined}
      data-unread={unread}
    >
      <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
        <path
          fill="currentColor"
          d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3.5a1.5 1.5 0 0 0-3 0v.66A7 7 0 0 0 5 11v5l-2 2v1h18v-1l-2-2Z"
        />
      </svg>
      <span class="visually-hidden">{words}</span>
      {unread > 0 && (
        <span class="bell-count" aria-hidden="true">
          {unread > 99 ? '99+' : unread}
        </span>
      )}
    </a>
  )
}
