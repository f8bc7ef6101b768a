import type { Hearth } from '@hearth/client'
import { groupAccounts } from '../components/sidebar.tsx'
import { formatCents } from '../format.ts'
import { useWatch } from '../hooks.ts'
import { linkTo } from '../router.ts'

/** Every account with its balances, grouped as the API groups them. */
export function AccountsScreen(props: { hearth: Hearth }) {
  const { data } = useWatch(props.hearth, 'accounts.list', {})
  const groups = groupAccounts(data?.items ?? [])
  return (
    <section aria-labelledby="accounts-title">
      <header class="screen-header">
        <h1 id="accounts-title">Accounts</h1>
      </header>
      {groups.map(([group, accounts]) => (
        <section key={group} class="card" aria-label={`${group} accounts`}>
          <h2 class="card-title">{group}</h2>
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col">Type</th>
                <th scope="col" class="num">
                  Cleared
                </th>
                <th scope="col" class="num">
                  Balance
                </th>
              </tr>
            </thead>
            <tbody>
              {accounts.map((a) => (
                <tr key={a.id} class={a.status === 'closed' ? 'muted' : ''}>
                  <td>
                    <a {...linkTo(`/accounts/${a.id}`)}>{a.name}</a>
                    {a.status === 'closed' && <span class="pill">closed</span>}
                  </td>
                  <td>
                    {a.type}
                    {a.subtype ? ` · ${a.subtype}` : ''}
                    {a.onBudget ? '' : ' · off budget'}
                  </td>
                  <td class="num">{formatCents(a.clearedBalanceCents, a.currency)}</td>
                  <td class="num amount">{formatCents(a.balanceCents, a.currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ))}
      {data && data.items.length === 0 && <p class="muted">No accounts yet.</p>}
    </section>
  )
}
