import type { Hearth } from '@hearth/client'
import { useState } from 'preact/hooks'
import { errorMessage } from '../../format.ts'
import { useWatch } from '../../hooks.ts'
import { ReadGuard } from '../../reads/read-guard.tsx'
import { linkTo } from '../../router.ts'
import { KIND_WORDS, subjectPath } from './kind-words.ts'

/**
 * The member's notifications in this household, newest first, from the replica: each marked read
 * or dismissed on the device (offline too; the change syncs), with a link to what it concerns.
 */
export function NotificationFeed(props: { hearth: Hearth }) {
  const { hearth } = props
  const feed = useWatch(hearth, 'notifications.list', {})
  const [error, setError] = useState<string | null>(null)
  const act = (work: Promise<unknown>) => {
    setError(null)
    work.catch((e) => setError(errorMessage(e)))
  }
  return (
    <section class="card" aria-labelledby="feed-title">
      <div class="row feed-header">
        <h2 id="feed-title" class="card-title">
          Feed
        </h2>
        {feed.data?.some((n) => n.readAt === null) && (
          <button
            type="button"
            class="ghost small"
            onClick={() => act(hearth.mutate.notifications.markAllRead({}))}
          >
            Mark all read
          </button>
        )}
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <ReadGuard hearth={hearth} reads={[feed]}>
        {() =>
          feed.data!.length === 0 ? (
            <p class="muted">Nothing new. Notifications about this household appear here.</p>
          ) : (
            <ul class="feed">
              {feed.data!.map((n) => {
                const path = subjectPath(n.subject)
                return (
                  <li
                    key={n.id}
                    class={`feed-item ${n.readAt ? 'read' : 'unread'}`}
                    data-notification={n.id}
                    data-kind={n.kind}
                    data-read={n.readAt ? 'true' : 'false'}
                  >
                    <div class="feed-text">
                      <p class="feed-title">
                        {n.readAt === null && <span class="visually-hidden">Unread: </span>}
                        {n.title}
                      </p>
                      <p class="muted">{n.body}</p>
                      <p class="muted feed-meta">
                        {KIND_WORDS[n.kind] ?? n.kind} · {new Date(n.createdAt).toLocaleString()}
                        {path && (
                          <>
                            {' · '}
                            <a {...linkTo(path)}>Open</a>
                          </>
                        )}
                      </p>
                    </div>
                    <div class="feed-actions">
                      {n.readAt === null && (
                        <button
                          type="button"
                          class="ghost small"
                          aria-label={`Mark “${n.title}” read`}
                          onClick={() => act(hearth.mutate.notifications.markRead({ id: n.id }))}
                        >
                          Mark read
                        </button>
                      )}
                      <button
                        type="button"
                        class="ghost small"
                        aria-label={`Dismiss “${n.title}”`}
                        onClick={() => act(hearth.mutate.notifications.dismiss({ id: n.id }))}
                      >
                        Dismiss
                      </button>
                    </div>
                  </li>
                )
              })}
            </ul>
          )
        }
      </ReadGuard>
    </section>
  )
}
