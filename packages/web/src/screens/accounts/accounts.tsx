import type { Hearth } from '@hearth/client'
import { useState } from 'preact/hooks'
import { NewAccountForm } from '../../components/new-account-form.tsx'
import { groupAccounts } from '../../components/sidebar.tsx'
import { formatCents } from '../../format.ts'
import { type QueryResult, useWatch } from '../../hooks.ts'
import { ReadGuard } from '../../reads/read-guard.tsx'
import { linkTo } from '../../router.ts'
import { AccountPanel } from './account-panel.tsx'

type Account = QueryResult<'accounts.list'>['items'][number]

/** Every account with its balances, grouped as the API groups them; open one to manage it. */
export function AccountsScreen(props: { hearth: Hearth }) {
  const accounts = useWatch(props.hearth, 'accounts.list', {})
  const [open, setOpen] = useState<string | null>(null)
  return (
    <section aria-labelledby="accounts-title">
      <header class="screen-header">
        <h1 id="accounts-title">Accounts</h1>
      </header>
      <ReadGuard hearth={props.hearth} reads={[accounts]}>
        {() => (
          <>
            <AccountGroups
              hearth={props.hearth}
              accounts={accounts.data!.items}
              open={open}
              onToggle={(id) => setOpen(open === id ? null : id)}
            />
            <NewAccountForm hearth={props.hearth} />
          </>
        )}
      </ReadGuard>
    </section>
  )
}

function AccountGroups(props: {
  hearth: Hearth
  accounts: readonly Account[]
  open: string | null
  onToggle: (id: string) => void
}) {
  const groups = groupAccounts(props.accounts)
  return (
    <>
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
                <th scope="col">
                  <span class="visually-hidden">Manage</span>
                </th>
              </tr>
            </thead>
            {accounts.map((a) => (
              <tbody key={a.id}>
                <tr class={a.status === 'closed' ? 'muted' : ''}>
                  <td>
                    <a {...linkTo(`/accounts/${a.id}`)}>{a.name}</a>
                    {a.status === 'closed' && <span class="pill">closed</span>}
                  </td>
                  <td>
                    {a.type}
                    {a.subtype ? ` · ${a.subtype}` : ''}
                    {a.onBudget ? ' · on budget' : ' · off budget'}
                  </td>
                  <td class="num">{formatCents(a.clearedBalanceCents, a.currency)}</td>
                  <td class="num amount">{formatCents(a.balanceCents, a.currency)}</td>
                  <td>
                    <button
                      type="button"
                      class="small"
                      aria-expanded={props.open === a.id}
                      aria-label={`Manage ${a.name}`}
                      onClick={() => props.onToggle(a.id)}
                    >
                      Manage
                    </button>
                  </td>
                </tr>
                {props.open === a.id && (
                  <tr class="editor-row">
                    <td colSpan={5}>
                      <AccountPanel hearth={props.hearth} account={a} />
                    </td>
                  </tr>
                )}
              </tbody>
            ))}
          </table>
        </section>
      ))}
      {props.accounts.length === 0 && <p class="muted">No accounts yet: add the first below.</p>}
    </>
  )
}
