import type { Hearth, HearthNote, NoteStatus } from '@hearth/client'
import { useEffect, useId, useRef, useState } from 'preact/hooks'
import type * as Y from 'yjs'
import { applyLocalEdit, mapThroughDelta } from './text-binding.ts'

type Target = { kind: 'account' | 'category' | 'month' | 'transaction'; id: string }

const TITLES: Record<Target['kind'], string> = {
  account: 'Account note',
  category: 'Category note',
  month: 'Month note',
  transaction: 'Transaction note',
}

/** Someone else with this note open, from the note's awareness (the server stamps `user.id`). */
interface Editor {
  clientId: number
  name: string
}

/** Marks this editor's own changes to the Y.Text, so its observer does not apply them twice. */
const LOCAL = Symbol('note-editor')

/**
 * The shared note on an account, category, budget month or transaction: a plain textarea bound
 * to the note's Y.Text. Each input is diffed against the text (guided by the caret) into one Yjs
 * edit; other members' edits are applied in place, with the caret and selection moved through
 * them, so typing is never interrupted. Shows who else has the note open, whether it is saved to
 * the server or kept on this device, and an edit the server refused.
 */
export function NoteEditor(props: { hearth: Hearth; target: Target }) {
  const { hearth, target } = props
  const id = useId()
  const area = useRef<HTMLTextAreaElement>(null)
  const [note, setNote] = useState<HearthNote | null>(null)
  const [status, setStatus] = useState<NoteStatus | null>(null)
  const [editors, setEditors] = useState<Editor[]>([])
  const [failed, setFailed] = useState<string | null>(null)

  useEffect(() => {
    let live = true
    let opened: HearthNote | null = null
    const offs: (() => void)[] = []
    setNote(null)
    setFailed(null)
    hearth.notes
      .open(target)
      .then((n) => {
        if (!live) {
          void n.close()
          return
        }
        opened = n
        setNote(n)
        setStatus(n.status)
        offs.push(n.on('status', setStatus))
        const readEditors = () => {
          const others: Editor[] = []
          for (const [clientId, state] of n.awareness.getStates()) {
            if (clientId === n.awareness.clientID) continue
            const user = (state as { user?: { name?: unknown } }).user
            others.push({
              clientId,
              name: typeof user?.name === 'string' && user.name ? user.name : 'Someone',
            })
          }
          setEditors(others)
        }
        n.awareness.on('change', readEditors)
        offs.push(() => n.awareness.off('change', readEditors))
        readEditors()
      })
      .catch((error: Error) => live && setFailed(error.message))
    return () => {
      live = false
      for (const off of offs) off()
      void opened?.close()
    }
  }, [hearth, target.kind, target.id])

  // The binding: the textarea shows the Y.Text; remote changes keep the caret where the user left it.
  useEffect(() => {
    const el = area.current
    if (!note || !el) return
    el.value = note.text.toString()
    const observer = (event: Y.YTextEvent, transaction: Y.Transaction) => {
      if (transaction.origin === LOCAL) return
      const focused = document.activeElement === el
      const start = mapThroughDelta(el.selectionStart, event.delta)
      const end = mapThroughDelta(el.selectionEnd, event.delta)
      el.value = note.text.toString()
      if (focused) el.setSelectionRange(start, end, el.selectionDirection)
    }
    note.text.observe(observer)
    return () => note.text.unobserve(observer)
  }, [note])

  const onInput = () => {
    const el = area.current
    if (!note || !el) return
    note.doc.transact(() => applyLocalEdit(note.text, el.value, el.selectionEnd), LOCAL)
  }

  const readOnly = Boolean(status?.refused?.startsWith('READ_ONLY'))
  const titleId = `${id}-title`
  const statusId = `${id}-status`
  return (
    <section class="note" aria-labelledby={titleId} data-note-kind={target.kind} data-note-id={target.id}>
      <div class="note-head">
        <h2 class="note-title" id={titleId}>
          <label for={`${id}-text`}>{TITLES[target.kind]}</label>
        </h2>
        <ul class="note-editors" aria-label="Also editing">
          {editors.map((e) => (
            <li key={e.clientId} title={`${e.name} is editing`}>
              <span class="avatar" aria-hidden="true">
                {initials(e.name)}
              </span>
              <span class="visually-hidden">{e.name} is editing</span>
            </li>
          ))}
        </ul>
      </div>
      <textarea
        id={`${id}-text`}
        ref={area}
        class="note-text"
        rows={3}
        maxLength={20_000}
        placeholder={note ? 'Write a note everyone in the household can see…' : 'Opening the note…'}
        disabled={!note}
        readOnly={readOnly}
        aria-describedby={statusId}
        onInput={onInput}
      />
      <p class="note-status muted" id={statusId} aria-live="polite">
        {failed ? `The note could not be opened: ${failed}` : describe(status, editors.length)}
      </p>
    </section>
  )
}

function describe(status: NoteStatus | null, others: number): string {
  if (!status) return 'Opening…'
  if (status.error) return `Closed by the server (${status.error.reason}); reopen the page to try again.`
  if (status.refused?.startsWith('READ_ONLY'))
    return 'Read only: your key may read this note but not change it.'
  if (status.refused) return `Not saved: ${status.refused.replace(/^[A-Z_]+: /, '')}`
  if (!status.connected)
    return 'Offline: your edits are kept on this device and shared when you are back online.'
  if (!status.synced) return 'Connecting…'
  return others > 0 ? `Shared live with ${others} other${others === 1 ? '' : 's'}.` : 'Saved and shared.'
}

function initials(name: string): string {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => w[0]!.toUpperCase())
    .join('')
}
