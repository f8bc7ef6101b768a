import type { Hearth } from '@hearth/client'

export function RulesScreen(props: { hearth: Hearth }) {
  return (
    <section aria-labelledby="rules-title" data-household={props.hearth.householdId}>
      <header class="screen-header">
        <h1 id="rules-title">rules</h1>
      </header>
    </section>
  )
}
