import { createContext } from 'preact'
import { useContext, useState } from 'preact/hooks'
import { errorMessage } from '../format.ts'
import { ReadGuard } from '../reads/read-guard.tsx'
import { type ServerAccess, serverCall } from '../server-calls.ts'
import { useServerRead } from '../server-read.ts'
import './activity.css'
import { changeWords } from './change-words.ts'

/** One entry of `GET H/activity` (docs/api/activity.md), as the app shows it. */
export interface ActivityEntry {
  id: string
  occurredAt: string
  operation: string
  memberId: string
  actor: { kind: string; label: string }
  summary: string
  changes: {
    resource: string
    id: string
    action: 'created' | 'updated' | 'deleted' | 'restored'
    fields: { field: string; text: string }[]
  }[]
  undoesEntryId: string | null
  undoneByEntryId: string | null
}

interface ActivityPage {
  items: ActivityEntry[]
  nextCursor: string | null
}

/** The filters `GET H/activity` takes, each optional. */
export type ActivityFilter = Partial<
  Record<'memberId' | 'accountId' | 'categoryId' | 'transactionId' | 'month' | 'dateFrom' | 'dateTo', string>
>

/** Who reads: their id and role, to offer Undo where they may (their own entries; owners anyone's). */
export interface ActivityReader {
  userId: string
  role: 'owner' | 'member'
}

/**
 * A household's activity, newest first, from the server: who, when, what, and each changed field
 * before → after. With a `reader`, an Undo on each entry they may undo (their own, or as an owner
 * anyone's) that was not undone. It is the server's record, so it needs the server: offline, it
 * says so rather than show nothing.
 */
export function ActivityEntries(props: {
  access: ServerAccess
  householdId: string
  filter: ActivityFilter
  reader?: ActivityReader | null
  limit?: number
  empty?: string
}) {
  const { access, householdId, filter, reader } = props
  const h = `/households/${householdId}`
  const query = new URLSearchParams({
    limit: String(props.limit ?? 50),
    ...Object.fromEntries(Object.entries(filter).filter(([, v]) => v)),
  }).toString()
  const first = useServerRead(
    () => serverCall<ActivityPage>(access, 'GET', `${h}/activity?${query}`),
    [h, query],
  )
  const [more, setMore] = useState<{ query: string; items: ActivityEntry[]; next: string | null } | null>(
    null,
  )
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null)
  const extra = more?.query === query ? more : null
  const items = [...(first.data?.items ?? []), ...(extra?.items ?? [])]
  const next = extra ? extra.next : (first.data?.nextCursor ?? null)

  const loadMore = async () => {
    if (!next) return
    try {
      const page = await serverCall<ActivityPage>(
        access,
        'GET',
        `${h}/activity?${query}&cursor=${encodeURIComponent(next)}`,
      )
      setMore({ query, items: [...(extra?.items ?? []), ...page.items], next: page.nextCursor })
    } catch (e) {
      setMessage({ kind: 'error', text: errorMessage(e) })
    }
  }
  const undo = async (entry: ActivityEntry) => {
    try {
      await serverCall(access, 'POST', `${h}/activity/undo`, {
        body: { entryId: entry.id },
        idempotencyKey: crypto.randomUUID(),
      })
      setMessage({
        kind: 'ok',
        text: `${entry.undoesEntryId ? 'Redone' : 'Undone'}: ${changeWords(entry.operation)}.`,
      })
      setMore(null)
      first.reload()
    } catch (e) {
      setMessage({ kind: 'error', text: errorMessage(e) })
    }
  }

  return (
    <div class="activity">
      {message && (
        <p
          role={message.kind === 'error' ? 'alert' : 'status'}
          class={message.kind === 'error' ? 'error' : 'ok'}
        >
          {message.text}
        </p>
      )}
      <ReadGuard hearth={null} reads={[first]}>
        {() =>
          items.length === 0 ? (
            <p class="muted">
              {props.empty ??
                'No changes here yet. You see the changes to what your sign-in may read; others are not listed.'}
            </p>
          ) : (
            <>
              <ul class="activity-list" aria-label="Changes, newest first">
                {items.map((entry) => (
                  <li
                    key={entry.id}
                    class="activity-entry"
                    data-entry={entry.id}
                    data-operation={entry.operation}
                  >
                    <div>
                      <div>
                        <span class="activity-who">{entry.actor.label}</span>{' '}
                        <time class="activity-when" dateTime={entry.occurredAt}>
                          {new Date(entry.occurredAt).toLocaleString()}
                        </time>
                      </div>
                      <div class="activity-what">
                        {entry.undoesEntryId ? 'Undo' : changeWords(entry.operation)}{' '}
                        <code class="muted">{entry.operation}</code>
                      </div>
                      <ul class="activity-changes">
                        {entry.changes.map((c) => (
                          <li key={`${c.resource}-${c.id}`}>
                            {c.action} {c.resource}
                            {c.action !== 'deleted' &&
                              c.fields.length > 0 &&
                              `: ${c.fields.map((f) => f.text).join(', ')}`}
                          </li>
                        ))}
                      </ul>
                      {entry.undoneByEntryId && <p class="activity-undone">Undone since.</p>}
                    </div>
                    {reader &&
                      !entry.undoneByEntryId &&
                      entry.changes.length > 0 &&
                      (entry.memberId === reader.userId || reader.role === 'owner') && (
                        <button
                          type="button"
                          class="ghost"
                          onClick={() => void undo(entry)}
                          aria-label={`${entry.undoesEntryId ? 'Redo' : 'Undo'} ${changeWords(entry.operation)} of ${new Date(entry.occurredAt).toLocaleString()}`}
                        >
                          {entry.undoesEntryId ? 'Redo' : 'Undo'}
                        </button>
                      )}
                  </li>
                ))}
              </ul>
              {next && (
                <button type="button" class="ghost" onClick={() => void loadMore()}>
                  Show older changes
                </button>
              )}
            </>
          )
        }
      </ReadGuard>
    </div>
  )
}

/** Where the signed-in household's server is, for panels deep in a screen that read the activity. */
export const HouseholdAccess = createContext<{ access: ServerAccess; householdId: string } | null>(null)

/**
 * A history panel: one transaction's or one budget cell's changes, with who made each. Opens on
 * demand, as it reads from the server (`HouseholdAccess` says which).
 */
export function HistoryPanel(props: { filter: ActivityFilter; title: string }) {
  const household = useContext(HouseholdAccess)
  const [open, setOpen] = useState(false)
  if (!household) return null
  return (
    <section class="history-panel" aria-label={props.title}>
      <button type="button" class="ghost" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? 'Hide history' : 'History'}
      </button>
      {open && (
        <ActivityEntries
          access={household.access}
          householdId={household.householdId}
          filter={props.filter}
          limit={20}
          empty="No recorded changes yet."
        />
      )}
    </section>
  )
}
