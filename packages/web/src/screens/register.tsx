import type { Hearth } from '@hearth/client'
import { NoteEditor } from '../notes/note-editor.tsx'

export function RegisterScreen(props: { hearth: Hearth; accountId: string | null }) {
  return (
    <section aria-labelledby="register-title" data-household={props.hearth.householdId}>
      <header class="screen-header">
        <h1 id="register-title">register</h1>
      </header>
      {props.accountId && (
        <NoteEditor hearth={props.hearth} target={{ kind: 'account', id: props.accountId }} />
      )}
    </section>
  )
}
