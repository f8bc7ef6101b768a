import { useState } from 'preact/hooks'
import { errorMessage, formatDate } from '../format.ts'
import { type ServerAccess, serverCall } from '../server-calls.ts'
import { useServerRead } from '../server-read.ts'

/** A conversation as `GET H/ai/conversations` lists it. */
export interface ConversationSummary {
  id: string
  title: string
  status: 'open' | 'stopped'
  updatedAt: string
}

/**
 * The member's conversations, most recent first: searched by title, opened, deleted. `round`
 * changes when a turn adds or renames one, so the list is read again.
 */
export function ConversationList(props: {
  access: ServerAccess
  householdId: string
  currentId: string | null
  round: number
  onOpen: (id: string) => void
  onDeleted: (id: string) => void
}) {
  const [q, setQ] = useState('')
  const [error, setError] = useState<string | null>(null)
  const ai = `/households/${props.householdId}/ai`
  const list = useServerRead(
    () =>
      serverCall<{ items: ConversationSummary[] }>(
        props.access,
        'GET',
        `${ai}/conversations?limit=50${q.trim() ? `&q=${encodeURIComponent(q.trim())}` : ''}`,
      ),
    [ai, q, props.round],
  )
  const remove = async (c: ConversationSummary) => {
    setError(null)
    try {
      await serverCall(props.access, 'DELETE', `${ai}/conversations/${c.id}`)
      props.onDeleted(c.id)
      list.reload()
    } catch (e) {
      setError(errorMessage(e))
    }
  }
  return (
    <section class="conversation-list" aria-labelledby="conversations-title">
      <h3 id="conversations-title">Conversations</h3>
      <label>
        <span>Search conversations</span>
        <input type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
      </label>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {list.error ? (
        <p role="alert" class="error">
          {errorMessage(list.error)}
        </p>
      ) : !list.data ? (
        <p class="muted" aria-busy="true">
          Reading your conversations…
        </p>
      ) : list.data.items.length === 0 ? (
        <p class="muted">{q.trim() ? 'No conversation has that in its title.' : 'No conversations yet.'}</p>
      ) : (
        <ul class="conversation-items">
          {list.data.items.map((c) => (
            <li key={c.id} data-conversation={c.id}>
              <button
                type="button"
                class="link"
                aria-current={c.id === props.currentId ? 'true' : undefined}
                onClick={() => props.onOpen(c.id)}
              >
                {c.title}
              </button>
              <span class="muted conversation-date">{formatDate(c.updatedAt.slice(0, 10))}</span>
              <button
                type="button"
                class="ghost small danger"
                aria-label={`Delete the conversation “${c.title}”`}
                onClick={() => remove(c)}
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
