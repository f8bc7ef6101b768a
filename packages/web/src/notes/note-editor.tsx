import type { Hearth } from '@hearth/client'

/** Placeholder: the shared note editor over Yjs (branch s25-30c) replaces this file. */
export function NoteEditor(props: {
  hearth: Hearth
  target: { kind: 'account' | 'category' | 'month' | 'transaction'; id: string }
}) {
  return (
    <section class="note" aria-label="Note" data-note-kind={props.target.kind} data-note-id={props.target.id}>
      <h2 class="note-title">Note</h2>
      <p class="muted">Shared notes are coming.</p>
    </section>
  )
}
