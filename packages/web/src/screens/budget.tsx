import type { Hearth } from '@hearth/client'
import { thisMonth } from '../format.ts'
import { NoteEditor } from '../notes/note-editor.tsx'

export function BudgetScreen(props: { hearth: Hearth; month: string | null }) {
  return (
    <section aria-labelledby="budget-title" data-household={props.hearth.householdId}>
      <header class="screen-header">
        <h1 id="budget-title">budget</h1>
      </header>
      <NoteEditor hearth={props.hearth} target={{ kind: 'month', id: props.month ?? thisMonth() }} />
    </section>
  )
}
