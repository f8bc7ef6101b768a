import { type Hearth, ulid } from '@hearth/client'
import { useState } from 'preact/hooks'
import { errorMessage, formatCents } from '../../format.ts'
import { useWatch } from '../../hooks.ts'
import { ReadGuard } from '../../reads/read-guard.tsx'
import { type ServerAccess, serverCall } from '../../server-calls.ts'
import { useServerRead } from '../../server-read.ts'

interface Link {
  remoteId: string
  name: string
  institution: string | null
  currency: string
  accountId: string | null
  balanceCents: string | null
  balanceAt: string | null
}
interface SyncAccount {
  remoteId: string
  accountId: string
  created: number
  matched: number
  duplicate: number
  updated: number
  removed: number
  refused: { id: string; reason: string }[]
  bankBalanceCents: string | null
  accountBalanceCents: string
  differenceCents: string | null
}
interface Connection {
  id: string
  institutions: string[]
  status: 'active' | 'needsAttention'
  attentionReason: string | null
  lastSyncedAt: string | null
  lastSync: {
    outcome: 'synced' | 'partial' | 'failed'
    accounts: SyncAccount[]
    providerErrors: string[]
    error: string | null
  } | null
  links: Link[]
}

/**
 * Bank connections through SimpleFIN Bridge (docs/api/bank-connections.md): paste a setup token,
 * choose where each bank account's rows go, sync now, and read what the last sync did and what
 * the bank said. Connections are the server's (a device never holds the bank's access), so these
 * are REST calls, read again after each change.
 */
export function BankConnectionsScreen(props: { hearth: Hearth; access: ServerAccess; householdId: string }) {
  const { access } = props
  const h = `/households/${props.householdId}`
  const connections = useServerRead(
    () => serverCall<{ items: Connection[] }>(access, 'GET', `${h}/bank-connections`),
    [h],
  )
  const accounts = useWatch(props.hearth, 'accounts.list', {})
  const [token, setToken] = useState('')
  const [key, setKey] = useState(ulid)
  const [busy, setBusy] = useState<string | null>(null)
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null)

  const act = async (label: string, work: () => Promise<string | null>) => {
    if (busy) return
    setBusy(label)
    try {
      const done = await work()
      setMessage(done ? { kind: 'ok', text: done } : null)
      connections.reload()
    } catch (e) {
      setMessage({ kind: 'error', text: errorMessage(e) })
    } finally {
      setBusy(null)
    }
  }
  const connect = (event: Event) => {
    event.preventDefault()
    void act('connect', async () => {
      const made = await serverCall<Connection>(access, 'POST', `${h}/bank-connections`, {
        body: { setupToken: token.trim() },
        idempotencyKey: key,
      })
      setToken('')
      setKey(ulid())
      return `Connected ${made.institutions.join(', ') || 'the bank'}: choose below where each account's rows go.`
    })
  }

  return (
    <section class="stack bank-connections" aria-labelledby="banks-title">
      <h1 id="banks-title">Bank connections</h1>
      <p class="muted">
        Accounts that update themselves. Hearth reads your banks through SimpleFIN Bridge: make a setup token
        at the bridge (bridge.simplefin.org), paste it here, and choose where each bank account's rows go.
        Hearth syncs a few times a day; rows you entered by hand are matched rather than doubled.
      </p>
      <form class="card stack" onSubmit={connect} aria-label="Connect a bank">
        <label>
          Setup token
          <textarea
            name="setupToken"
            rows={2}
            value={token}
            onInput={(e) => setToken(e.currentTarget.value)}
            placeholder="Paste the token the bridge shows"
            required
          />
        </label>
        <button type="submit" class="primary" disabled={busy !== null || token.trim() === ''}>
          {busy === 'connect' ? 'Connecting…' : 'Connect a bank'}
        </button>
      </form>
      {message && (
        <p
          class={message.kind === 'error' ? 'error' : 'notice'}
          role={message.kind === 'error' ? 'alert' : 'status'}
        >
          {message.text}
        </p>
      )}
      <ReadGuard hearth={props.hearth} reads={[connections, accounts]}>
        {() => {
          const items = connections.data!.items
          if (items.length === 0)
            return (
              <p class="card muted" data-empty="bank-connections">
                No bank is connected yet. Paste a setup token above to connect one; until then, import bank
                files from the Accounts screen.
              </p>
            )
          const open = (accounts.data?.items ?? []).filter((a) => a.status === 'open')
          return items.map((c) => (
            <article
              class="card stack bank-connection"
              key={c.id}
              aria-label={c.institutions.join(', ') || 'Bank'}
            >
              <header class="row">
                <h2>{c.institutions.join(', ') || 'Bank connection'}</h2>
                <span class="muted">
                  {c.lastSyncedAt
                    ? `Last synced ${new Date(c.lastSyncedAt).toLocaleString()}`
                    : 'Not synced yet'}
                </span>
              </header>
              {c.status === 'needsAttention' && (
                <p class="error" role="alert">
                  This connection stopped syncing: {c.attentionReason} Make a new setup token at the bridge,
                  connect again, then disconnect this one.
                </p>
              )}
              {c.lastSync && <SyncSummary connection={c} />}
              <table class="bank-links">
                <thead>
                  <tr>
                    <th scope="col">At the bank</th>
                    <th scope="col">Balance</th>
                    <th scope="col">Rows go to</th>
                  </tr>
                </thead>
                <tbody>
                  {c.links.map((l) => {
                    const choices = open.filter((a) => a.currency === l.currency)
                    return (
                      <tr key={l.remoteId}>
                        <td>
                          {l.name}
                          {l.institution && <span class="muted"> · {l.institution}</span>}
                        </td>
                        <td>
                          {l.balanceCents === null
                            ? '—'
                            : formatCents(l.balanceCents, validCurrency(l.currency))}
                        </td>
                        <td>
                          <select
                            aria-label={`Where ${l.name}'s rows go`}
                            value={l.accountId ?? ''}
                            disabled={busy !== null}
                            onChange={(e) => {
                              const value = e.currentTarget.value
                              void act('link', async () => {
                                await serverCall(
                                  access,
                                  'PUT',
                                  `${h}/bank-connections/${c.id}/links/${encodeURIComponent(l.remoteId)}`,
                                  {
                                    body:
                                      value === 'new'
                                        ? { createAccount: { name: l.name.slice(0, 100) } }
                                        : { accountId: value === '' ? null : value },
                                  },
                                )
                                return value === ''
                                  ? `${l.name}'s rows are ignored from now on.`
                                  : `${l.name} is linked.`
                              })
                            }}
                          >
                            <option value="">Ignore this account</option>
                            {choices.map((a) => (
                              <option key={a.id} value={a.id}>
                                {a.name}
                              </option>
                            ))}
                            <option value="new">A new account for it</option>
                          </select>
                          {!/^[A-Z]{3}$/.test(l.currency) && (
                            <span class="muted"> Its currency is not one Hearth can keep.</span>
                          )}
                        </td>
                      </tr>
                    )
                  })}
                </tbody>
              </table>
              <div class="row">
                <button
                  type="button"
                  class="primary"
                  disabled={busy !== null}
                  onClick={() =>
                    act('sync', async () => {
                      const after = await serverCall<Connection>(
                        access,
                        'POST',
                        `${h}/bank-connections/${c.id}/sync`,
                      )
                      const made = after.lastSync?.accounts.reduce((n, a) => n + a.created, 0) ?? 0
                      return after.lastSync?.outcome === 'synced'
                        ? `Synced: ${made} new ${made === 1 ? 'row' : 'rows'}.`
                        : `The sync stopped short: ${after.lastSync?.error ?? 'see below'}.`
                    })
                  }
                >
                  {busy === 'sync' ? 'Syncing…' : 'Sync now'}
                </button>
                <button
                  type="button"
                  disabled={busy !== null}
                  onClick={() => {
                    if (
                      !confirm(
                        'Disconnect this bank? The rows it brought stay; disable the token at the bridge too.',
                      )
                    )
                      return
                    void act('disconnect', async () => {
                      await serverCall(access, 'DELETE', `${h}/bank-connections/${c.id}`)
                      return 'Disconnected. The rows it brought stay.'
                    })
                  }}
                >
                  Disconnect
                </button>
              </div>
            </article>
          ))
        }}
      </ReadGuard>
    </section>
  )
}

/** What the last sync did per linked account, with the bank's own messages as they came. */
function SyncSummary(props: { connection: Connection }) {
  const sync = props.connection.lastSync!
  const names = new Map(props.connection.links.map((l) => [l.remoteId, l]))
  return (
    <div class="stack sync-summary" data-outcome={sync.outcome}>
      {sync.outcome !== 'synced' && sync.error && (
        <p class="error">The last sync stopped short: {sync.error}</p>
      )}
      {sync.providerErrors.length > 0 && (
        <div class="notice" role="status">
          <p>The bank says:</p>
          <ul>
            {sync.providerErrors.map((e) => (
              <li key={e}>{e}</li>
            ))}
          </ul>
        </div>
      )}
      <ul class="muted">
        {sync.accounts.map((a) => {
          const link = names.get(a.remoteId)
          const currency = validCurrency(link?.currency ?? 'USD')
          return (
            <li key={a.remoteId}>
              {link?.name ?? a.remoteId}: {a.created} new, {a.matched} matched to rows you entered,{' '}
              {a.updated} pending rows posted, {a.removed} pending rows dropped by the bank
              {a.refused.length > 0 && `, ${a.refused.length} refused (${a.refused[0]!.reason})`}.
              {a.differenceCents !== null &&
                (a.differenceCents === '0'
                  ? ' The cleared balance matches the bank.'
                  : ` The bank's balance differs from the cleared balance by ${formatCents(a.differenceCents, currency)}; reconcile the account to find why.`)}
            </li>
          )
        })}
      </ul>
    </div>
  )
}

function validCurrency(currency: string): string {
  return /^[A-Z]{3}$/.test(currency) ? currency : 'USD'
}
