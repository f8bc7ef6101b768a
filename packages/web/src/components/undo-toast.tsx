import type { Hearth } from '@hearth/client'
import { useEffect, useRef, useState } from 'preact/hooks'
import { errorMessage } from '../format.ts'
import { changeWords } from './change-words.ts'
import { type OwnChange, ownChanges } from './own-changes.ts'
import './activity.css'

/** How long a toast stays up after a change, unless another change or a dismissal replaces it. */
const TOAST_MS = 20_000

type Toast =
  | { kind: 'saved'; change: OwnChange }
  | { kind: 'undone'; change: OwnChange }
  | { kind: 'refused'; change: OwnChange; message: string }

/**
 * Undo in the app (issue 43): after each change made here a toast says so with an Undo button,
 * and Ctrl/Cmd+Z undoes this member's last change made here, then the one before. Both run
 * `activity.undoMutation` on the replica, so they work offline; the server undoes the change's
 * entry when the undo reaches it, and a refusal there shows with the other refused changes. In a
 * text field with typing not yet saved, Ctrl/Cmd+Z is the field's own.
 */
export function UndoToast(props: { hearth: Hearth }) {
  const { hearth } = props
  const changes = ownChanges(hearth)
  // A change made before this mounted (while the replica opened) is still shown if it is recent.
  const [toast, setToast] = useState<Toast | null>(() => {
    const last = changes.list.at(-1)
    return last && Date.now() - last.at < TOAST_MS ? { kind: 'saved', change: last } : null
  })
  // The field typed into since its last save, whose Ctrl/Cmd+Z undoes typing.
  const typing = useRef<EventTarget | null>(null)

  useEffect(
    () =>
      changes.onChange((change) => {
        typing.current = null
        setToast({ kind: 'saved', change })
      }),
    [changes],
  )

  useEffect(() => {
    if (!toast) return
    const timer = setTimeout(() => setToast(null), TOAST_MS)
    return () => clearTimeout(timer)
  }, [toast])

  const undo = async (change: OwnChange) => {
    changes.forget(change.id)
    try {
      await hearth.mutate.activity.undoMutation({ mutationId: change.id })
      setToast({ kind: 'undone', change })
    } catch (error) {
      setToast({ kind: 'refused', change, message: errorMessage(error) })
    }
  }

  useEffect(() => {
    const onInput = (e: Event) => {
      typing.current = e.target
    }
    const onFocus = (e: Event) => {
      if (e.target !== typing.current) typing.current = null
    }
    const onKey = (e: KeyboardEvent) => {
      if (e.key.toLowerCase() !== 'z' || !(e.ctrlKey || e.metaKey) || e.shiftKey || e.altKey) return
      const target = e.target as HTMLElement | null
      if (target?.isContentEditable || target?.tagName === 'TEXTAREA') return
      if (target === typing.current) return
      const last = changes.list.at(-1)
      if (!last) return
      e.preventDefault()
      void undo(last)
    }
    document.addEventListener('input', onInput, true)
    document.addEventListener('focusin', onFocus, true)
    document.addEventListener('keydown', onKey)
    return () => {
      document.removeEventListener('input', onInput, true)
      document.removeEventListener('focusin', onFocus, true)
      document.removeEventListener('keydown', onKey)
    }
  })

  if (!toast) return null
  const what = changeWords(toast.change.name)
  return (
    <div class={`undo-toast undo-${toast.kind}`} role={toast.kind === 'refused' ? 'alert' : 'status'}>
      <span>
        {toast.kind === 'saved'
          ? `Saved: ${what}.`
          : toast.kind === 'undone'
            ? `Undone: ${what}.`
            : `Could not undo ${what}: ${toast.message}`}
      </span>
      {toast.kind === 'saved' && (
        <button type="button" onClick={() => void undo(toast.change)} aria-keyshortcuts="Control+Z Meta+Z">
          Undo
        </button>
      )}
      <button type="button" class="ghost" aria-label="Dismiss" onClick={() => setToast(null)}>
        ×
      </button>
    </div>
  )
}
