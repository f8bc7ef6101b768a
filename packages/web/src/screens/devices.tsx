import { useEffect, useState } from 'preact/hooks'
import { errorMessage, formatDate } from '../format.ts'
import { type ServerAccess, serverCall } from '../server-calls.ts'
import { OidcLink } from './oidc-sign-in.tsx'
import { SignInSecurity } from './sign-in-security.tsx'

/** A signed-in browser or device, as `GET /sessions` lists it. */
interface SessionRow {
  id: string
  /** A browser's session, or an app's device signed in with the SDK. */
  kind: 'session' | 'device'
  name: string
  userAgent: string | null
  clientAddress: string | null
  createdAt: string
  lastUsedAt: string | null
  current: boolean
}

/**
 * Where you are signed in: each browser or device with its name, last use and address; sign one
 * out, or every one but this ("sign out everywhere"). Each ends at once on the server. Below, how
 * you sign in: an authenticator app and passkeys.
 */
export function DevicesScreen(props: { access: ServerAccess }) {
  const { access } = props
  const [rows, setRows] = useState<SessionRow[] | null>(null)
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null)
  const [round, setRound] = useState(0)
  useEffect(() => {
    let live = true
    serverCall<{ items: SessionRow[] }>(access, 'GET', '/sessions').then(
      (answer) => live && setRows(answer.items),
      (e) => live && setMessage({ kind: 'error', text: errorMessage(e) }),
    )
    return () => {
      live = false
    }
  }, [access, round])
  const act = (work: Promise<unknown>, ok: string) =>
    work.then(
      () => {
        setMessage({ kind: 'ok', text: ok })
        setRound((r) => r + 1)
      },
      (e) => setMessage({ kind: 'error', text: errorMessage(e) }),
    )
  const others = rows?.filter((r) => !r.current).length ?? 0
  return (
    <section aria-labelledby="devices-title">
      <header class="screen-header">
        <h1 id="devices-title">Devices</h1>
        <button
          type="button"
          disabled={others === 0}
          onClick={() => act(serverCall(access, 'DELETE', '/sessions'), 'Signed out everywhere else.')}
        >
          Sign out everywhere else
        </button>
      </header>
      <OidcLink access={access} />
      {message && (
        <p
          role={message.kind === 'error' ? 'alert' : 'status'}
          class={message.kind === 'error' ? 'error' : 'ok'}
        >
          {message.text}
        </p>
      )}
      {rows === null ? (
        <p class="loading" aria-busy="true">
          Reading where you are signed in…
        </p>
      ) : (
        <table class="table" aria-label="Signed-in devices">
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">Last used</th>
              <th scope="col">Address</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id}>
                <td>
                  {row.name}
                  {row.current && <span class="muted"> (this browser)</span>}
                  {row.kind === 'device' && <span class="muted"> (app)</span>}
                  {row.userAgent && <div class="muted">{row.userAgent}</div>}
                </td>
                <td>{formatDate((row.lastUsedAt ?? row.createdAt).slice(0, 10))}</td>
                <td>{row.clientAddress ?? '—'}</td>
                <td>
                  {!row.current && (
                    <button
                      type="button"
                      class="ghost"
                      aria-label={`Sign out ${row.name}`}
                      onClick={() =>
                        act(serverCall(access, 'DELETE', `/sessions/${row.id}`), `Signed out ${row.name}.`)
                      }
                    >
                      Sign out
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <SignInSecurity access={access} onChanged={() => setRound((r) => r + 1)} />
    </section>
  )
}
