import { SCOPES, type Scope, ulid } from '@hearth/client'
import { useState } from 'preact/hooks'
import { ShownOnce } from '../../components/shown-once.tsx'
import { errorMessage, formatDate } from '../../format.ts'
import { ReadGuard } from '../../reads/read-guard.tsx'
import { type ServerAccess, serverCall } from '../../server-calls.ts'
import { useServerRead } from '../../server-read.ts'

/** A key as `GET /users/me/api-keys` lists it: never its secret. */
interface ApiKey {
  id: string
  name: string
  prefix: string
  scopes: Scope[]
  createdAt: string
  lastUsedAt: string | null
  revokedAt: string | null
}

/** The scopes by what they cover (`read:accounts` and `write:accounts` under "accounts"). */
const SCOPE_AREAS = [...new Set(SCOPES.map((s) => s.split(':')[1]!))].map((area) => ({
  area,
  scopes: SCOPES.filter((s) => s.split(':')[1] === area),
}))

/**
 * Your API keys, for scripts and other apps: each with its name, the start of the key, its scopes
 * and when it was last used; create one with the scopes it needs (its secret is shown once) and
 * revoke one at once. A key's scopes can be no wider than this sign-in's (the server says so).
 */
export function ApiKeysSettings(props: { access: ServerAccess }) {
  const { access } = props
  const keys = useServerRead(
    () => serverCall<{ items: ApiKey[] }>(access, 'GET', '/users/me/api-keys'),
    [access],
  )
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null)
  const revoke = (key: ApiKey) => {
    if (!confirm(`Revoke “${key.name}”? Whatever uses it stops working at once.`)) return
    serverCall(access, 'DELETE', `/users/me/api-keys/${key.id}`).then(
      () => {
        setMessage({ kind: 'ok', text: `Revoked “${key.name}”.` })
        keys.reload()
      },
      (e) => setMessage({ kind: 'error', text: errorMessage(e) }),
    )
  }
  return (
    <section class="stack" aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <p class="muted">
        A key lets a script or another app use Hearth’s API as you, with only the scopes you give it.
      </p>
      {message && (
        <p role={message.kind === 'error' ? 'alert' : 'status'} class={message.kind}>
          {message.text}
        </p>
      )}
      <ReadGuard hearth={null} reads={[keys]}>
        {() => (
          <>
            <NewKeyForm access={access} onCreated={keys.reload} />
            <section class="card" aria-labelledby="key-list-title">
              <h3 id="key-list-title" class="card-title">
                Your keys
              </h3>
              {keys.data!.items.length === 0 ? (
                <p class="muted">You have no API keys yet.</p>
              ) : (
                <div class="table-scroll">
                  <table class="table" data-table="api-keys">
                    <thead>
                      <tr>
                        <th scope="col">Name</th>
                        <th scope="col">Starts with</th>
                        <th scope="col">Scopes</th>
                        <th scope="col">Last used</th>
                        <th scope="col">
                          <span class="visually-hidden">Actions</span>
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {keys.data!.items.map((k) => (
                        <tr key={k.id} data-key={k.name} data-state={k.revokedAt ? 'revoked' : 'active'}>
                          <td>{k.name}</td>
                          <td>
                            <code>{k.prefix}…</code>
                          </td>
                          <td class="scope-list">{k.scopes.join(', ')}</td>
                          <td>{k.lastUsedAt ? formatDate(k.lastUsedAt.slice(0, 10)) : 'Never'}</td>
                          <td>
                            {k.revokedAt ? (
                              <span class="muted">Revoked {formatDate(k.revokedAt.slice(0, 10))}</span>
                            ) : (
                              <button
                                type="button"
                                class="small danger ghost"
                                aria-label={`Revoke ${k.name}`}
                                onClick={() => revoke(k)}
                              >
                                Revoke
                              </button>
                            )}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </section>
          </>
        )}
      </ReadGuard>
    </section>
  )
}

/**
 * Creates a key with a name and scopes, and shows its secret once. One Idempotency-Key per key,
 * so a retry after a lost answer gets the same key back rather than a second one.
 */
function NewKeyForm(props: { access: ServerAccess; onCreated: () => void }) {
  const [name, setName] = useState('')
  const [chosen, setChosen] = useState<ReadonlySet<Scope>>(new Set())
  const [idempotencyKey, setIdempotencyKey] = useState(ulid)
  const [busy, setBusy] = useState(false)
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null)
  const [error, setError] = useState<string | null>(null)
  const toggle = (scope: Scope, on: boolean) => {
    const next = new Set(chosen)
    if (on) next.add(scope)
    else next.delete(scope)
    setChosen(next)
  }
  const submit = async (event: Event) => {
    event.preventDefault()
    if (busy) return
    if (!name.trim()) return setError('Give the key a name, so you know later what uses it.')
    if (chosen.size === 0) return setError('Choose at least one scope: a key with none could do nothing.')
    setBusy(true)
    try {
      const answer = await serverCall<{ name: string; key: string }>(
        props.access,
        'POST',
        '/users/me/api-keys',
        {
          body: { name: name.trim(), scopes: SCOPES.filter((s) => chosen.has(s)) },
          idempotencyKey,
        },
      )
      setCreated({ name: answer.name, key: answer.key })
      setError(null)
      setName('')
      setChosen(new Set())
      setIdempotencyKey(ulid())
      props.onCreated()
    } catch (e) {
      setError(errorMessage(e))
    } finally {
      setBusy(false)
    }
  }
  return (
    <form class="card stack" onSubmit={submit} aria-label="Create an API key">
      <h3 class="card-title">Create a key</h3>
      <label>
        Key name
        <input name="keyName" value={name} maxLength={200} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <fieldset class="scope-choice">
        <legend>Scopes</legend>
        <p class="row">
          <button
            type="button"
            class="small ghost"
            onClick={() => setChosen(new Set(SCOPES.filter((s) => s.startsWith('read:'))))}
          >
            Every read scope
          </button>
          <button type="button" class="small ghost" onClick={() => setChosen(new Set(SCOPES))}>
            Every scope
          </button>
          <button type="button" class="small ghost" onClick={() => setChosen(new Set())}>
            None
          </button>
        </p>
        <ul class="scope-grid plain-list">
          {SCOPE_AREAS.map(({ area, scopes }) => (
            <li key={area}>
              <span class="scope-area">{area}</span>
              {scopes.map((s) => (
                <label key={s} class="check">
                  <input
                    type="checkbox"
                    name="scope"
                    value={s}
                    checked={chosen.has(s)}
                    onChange={(e) => toggle(s, e.currentTarget.checked)}
                  />
                  {s}
                </label>
              ))}
            </li>
          ))}
        </ul>
      </fieldset>
      <button type="submit" class="primary" disabled={busy}>
        Create key
      </button>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {created && (
        <ShownOnce label="API key" secret={created.key}>
          This is the key “{created.name}”. Copy it now: Hearth keeps only a fingerprint of it and cannot show
          it again.
        </ShownOnce>
      )}
    </form>
  )
}
