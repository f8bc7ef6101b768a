import type { Hearth } from '@hearth/client'

/** Placeholder: the reports screen (branch s25-30b) replaces this file. */
export function ReportsScreen(props: { hearth: Hearth }) {
  return (
    <section aria-labelledby="reports-title" data-household={props.hearth.householdId}>
      <header class="screen-header">
        <h1 id="reports-title">Reports</h1>
      </header>
      <p class="muted">Reports are coming.</p>
    </section>
  )
}
