import { type Hearth, ulid } from '@hearth/client'
import { useState } from 'preact/hooks'
import { errorMessage } from '../format.ts'
import { useWatch } from '../hooks.ts'
import { useLookups } from '../lookups.ts'

/** Payees: near-duplicates to merge in one click, and every payee with a merge into another. */
export function PayeesScreen(props: { hearth: Hearth }) {
  const { hearth } = props
  const lookups = useLookups(hearth)
  const duplicates = useWatch(hearth, 'payees.duplicateGroups', {}).data
  const [filter, setFilter] = useState('')
  const [mergeInto, setMergeInto] = useState<Record<string, string>>({})
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
                  {p.categoryId ? lookups.categoryName.get(p.categoryId) : <span class="muted">None</span>}
                </td>
                <td class="row">
                  <select
                    aria-label={`Merge ${p.name} into`}
                    value={mergeInto[p.id] ?? ''}
                    onChange={(e) => setMergeInto({ ...mergeInto, [p.id]: e.currentTarget.value })}
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
                    disabled={!mergeInto[p.id]}
                    onClick={() => merge(p.id, mergeInto[p.id]!)}
                    aria-label={`Merge ${p.name}`}
                  >
                    Merge
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </section>
  )
}
