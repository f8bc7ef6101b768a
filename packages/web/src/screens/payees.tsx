import type { Hearth } from '@hearth/client'

export function PayeesScreen(props: { hearth: Hearth }) {
  return (
    <section aria-labelledby="payees-title" data-household={props.hearth.householdId}>
      <header class="screen-header">
        <h1 id="payees-title">payees</h1>
      </header>
    </section>
  )
}
