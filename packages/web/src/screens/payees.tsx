import { type Hearth, ulid } from '@hearth/client'
import { useEffect, useRef, useState } from 'preact/hooks'
import { errorMessage } from '../format.ts'
import { useWatch } from '../hooks.ts'
import { useLookups } from '../lookups.ts'
import { ReadGuard } from '../reads/read-guard.tsx'

/**
 * Payees: near-duplicates to merge in one click, and every payee with a merge into another (its
 * list of payees opens on the row asked for).
 */
export function PayeesScreen(props: { hearth: Hearth }) {
  const { hearth } = props
  const lookups = useLookups(hearth)
  const duplicatesRead = useWatch(hearth, 'payees.duplicateGroups', {})
  const duplicates = duplicatesRead.data
  const [filter, setFilter] = useState('')
  // The one row whose merge is being chosen: a list of every other payee on every row would be
  // n² options (193,000 for 440 payees), which took the screen 30 s to render.
  const [merging, setMerging] = useState<{ id: string; into: string } | null>(null)
  const mergeSelect = useRef<HTMLSelectElement>(null)
  useEffect(() => mergeSelect.current?.focus(), [merging?.id])
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null)
  const merge = (id: string, targetPayeeId: string) => {
    const from = lookups.payeeName.get(id)
    const to = lookups.payeeName.get(targetPayeeId)
    hearth.mutate.payees.merge({ id, targetPayeeId, mergeId: ulid() }).then(
      () => setMessage({ kind: 'ok', text: `Merged ${from} into ${to}.` }),
      (e) => setMessage({ kind: 'error', text: errorMessage(e) }),
    )
  }
  const shown = lookups.payees.filter((p) => p.name.toLowerCase().includes(filter.trim().toLowerCase()))

  return (
    <section aria-labelledby="payees-title">
      <header class="screen-header">
        <h1 id="payees-title">Payees</h1>
        <label class="search">
          <span class="visually-hidden">Find a payee</span>
          <input
            type="search"
            placeholder="Find a payee"
            value={filter}
            onInput={(e) => setFilter(e.currentTarget.value)}
          />
        </label>
      </header>
      {message && (
        <p
          role={message.kind === 'error' ? 'alert' : 'status'}
          class={message.kind === 'error' ? 'error' : 'ok'}
        >
          {message.text}
        </p>
      )}
      <ReadGuard hearth={hearth} reads={[duplicatesRead, lookups.reads.payees, lookups.reads.categories]}>
        {() => (
          <>
            <section class="card" aria-labelledby="duplicates-title">
              <h2 id="duplicates-title" class="card-title">
                Possible duplicates
              </h2>
              {duplicates && duplicates.items.length === 0 && <p class="muted">No payees look alike.</p>}
              <ul class="duplicate-groups">
                {duplicates?.items.map((group) => {
                  const [keep, ...others] = group.payees
                  return (
                    <li key={group.payees.map((p) => p.id).join()} class="duplicate-group">
                      <span>{group.payees.map((p) => p.name).join(' · ')}</span>
                      {keep &&
                        others.map((o) => (
                          <button key={o.id} type="button" class="small" onClick={() => merge(o.id, keep.id)}>
                            Merge “{o.name}” into “{keep.name}”
                          </button>
                        ))}
                    </li>
                  )
                })}
              </ul>
            </section>
            <section class="card" aria-labelledby="all-payees-title">
              <h2 id="all-payees-title" class="card-title">
                All payees
              </h2>
              <table class="table">
                <thead>
                  <tr>
                    <th scope="col">Payee</th>
                    <th scope="col">Default category</th>
                    <th scope="col">Merge into</th>
                  </tr>
                </thead>
                <tbody>
                  {shown.map((p) => (
                    <tr key={p.id}>
                      <td>{p.name}</td>
                      <td>
                        {p.categoryId ? (
                          lookups.categoryName.get(p.categoryId)
                        ) : (
                          <span class="muted">None</span>
                        )}
                      </td>
                      <td class="row">
                        {merging?.id === p.id ? (
                          <>
                            <select
                              aria-label={`Merge ${p.name} into`}
                              value={merging.into}
                              ref={mergeSelect}
                              onChange={(e) => setMerging({ id: p.id, into: e.currentTarget.value })}
                            >
                              <option value="">Choose a payee</option>
                              {lookups.payees
                                .filter((o) => o.id !== p.id)
                                .map((o) => (
                                  <option key={o.id} value={o.id}>
                                    {o.name}
                                  </option>
                                ))}
                            </select>
                            <button
                              type="button"
                              class="small"
                              disabled={!merging.into}
                              onClick={() => {
                                merge(p.id, merging.into)
                                setMerging(null)
                              }}
                              aria-label={`Merge ${p.name}`}
                            >
                              Merge
                            </button>
                            <button type="button" class="small ghost" onClick={() => setMerging(null)}>
                              Cancel
                            </button>
                          </>
                        ) : (
                          <button
                            type="button"
                            class="small ghost"
                            onClick={() => setMerging({ id: p.id, into: '' })}
                          >
                            Merge<span class="visually-hidden"> {p.name}</span> into…
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          </>
        )}
      </ReadGuard>
    </section>
  )
}
