import type { Hearth } from '@hearth/client'
import { ROUTES } from '../app.tsx'
import { formatCents } from '../format.ts'
import { useWatch } from '../hooks.ts'
import { linkTo } from '../router.ts'

/**
 * The app's sections, and the open accounts grouped as the API groups them, with balances. On a
 * narrow screen it is folded behind the top bar's menu button (`open`).
 */
export function Sidebar(props: { hearth: Hearth | null; route: string[]; open?: boolean }) {
  const { data } = useWatch(props.hearth, 'accounts.list', { status: 'open' })
  const [section = 'budget', param] = props.route
  const groups = groupAccounts(data?.items ?? [])
  return (
    <nav id="main-nav" class={props.open ? 'sidebar open' : 'sidebar'} aria-label="Main">
      <ul class="nav-list">
        {ROUTES.map((r) => {
          const current = `/${section}` === r.path && !(section === 'accounts' && param)
          return (
            <li key={r.path}>
              <a {...linkTo(r.path)} aria-current={current ? 'page' : undefined} class="nav-link">
                {r.label}
              </a>
            </li>
          )
        })}
      </ul>
      {groups.map(([group, accounts]) => (
        <section key={group} class="nav-group" aria-label={`${group} accounts`}>
          <h2 class="nav-group-title">
            <span>{group}</span>
            <span class="amount">{formatCents(sumCents(accounts), accounts[0]?.currency)}</span>
          </h2>
          <ul class="nav-list">
            {accounts.map((a) => (
              <li key={a.id}>
                <a
                  {...linkTo(`/accounts/${a.id}`)}
                  class="nav-link account-link"
                  aria-current={section === 'accounts' && param === a.id ? 'page' : undefined}
                >
                  <span class="account-name">{a.name}</span>
                  <span class={`amount ${BigInt(a.balanceCents) < 0n ? 'negative' : ''}`}>
                    {formatCents(a.balanceCents, a.currency)}
                  </span>
                </a>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </nav>
  )
}

/** Accounts in the API's order (group, then position), split by group. */
export function groupAccounts<T extends { group: string }>(accounts: readonly T[]): [string, T[]][] {
  const groups = new Map<string, T[]>()
  for (const a of accounts) {
    const list = groups.get(a.group) ?? []
    list.push(a)
    groups.set(a.group, list)
  }
  return [...groups]
}

function sumCents(accounts: readonly { balanceCents: string }[]): bigint {
  return accounts.reduce((sum, a) => sum + BigInt(a.balanceCents), 0n)
}
