import type { Hearth, RejectedEvent } from '@hearth/client'
import { useEffect, useState } from 'preact/hooks'
import { changeWords } from './change-words.ts'

/**
 * Changes the server refused, with its reason and a way to dismiss each: the refused change's
 * local effect is gone after the next rebase, so the member can redo what they meant.
 */
export function RefusedChanges(props: { hearth: Hearth }) {
  const [refused, setRefused] = useState<readonly RejectedEvent[]>(() => props.hearth.sync.rejected)
  const [dismissed, setDismissed] = useState<ReadonlySet<string | number>>(() => new Set())
  useEffect(() => {
    setRefused([...props.hearth.sync.rejected])
    return props.hearth.on('rejected', () => setRefused([...props.hearth.sync.rejected]))
  }, [props.hearth])
  const shown = refused.filter((r) => !dismissed.has(r.mutation.id))
  if (shown.length === 0) return null
  return (
    <section class="refused" aria-label="Changes the server refused" aria-live="assertive">
      <ul>
        {shown.map((r) => (
          <li key={r.mutation.id} class="refused-item">
            <div>
              <strong>Not saved: {changeWords(r.mutation.name ?? 'change')}.</strong> <span>{r.message}</span>{' '}
              <span class="muted">({r.code})</span>
            </div>
            <button
              type="button"
              class="ghost"
              onClick={() => setDismissed(new Set([...dismissed, r.mutation.id]))}
              aria-label={`Dismiss: ${changeWords(r.mutation.name ?? 'change')}`}
            >
              Dismiss
            </button>
          </li>
        ))}
      </ul>
    </section>
  )
}
