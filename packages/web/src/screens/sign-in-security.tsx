import { useEffect, useState } from 'preact/hooks'
import { errorMessage, formatDate } from '../format.ts'
import { type ServerAccess, serverCall } from '../server-calls.ts'

interface TotpStatus {
  enrolled: boolean
  confirmedAt: string | null
  recoveryCodesLeft: number
}

interface PasskeyRow {
  id: string
  name: string
  createdAt: string
  lastUsedAt: string | null
}

type Message = { kind: 'ok' | 'error'; text: string } | null

/** What a person typed to prove it is them: a code of the app (6 digits), a recovery code, or the password. */
function proofOf(typed: string): Record<string, string> {
  const text = typed.trim()
  if (/^\d{6}$/.test(text)) return { code: text }
  if (/^[a-z0-9]{5}-?[a-z0-9]{5}$/i.test(text)) return { recoveryCode: text }
  return { password: typed }
}

/**
 * Sign-in and security: an authenticator app (TOTP) with its recovery codes, and passkeys. Each
 * secret is shown once; changing one ends your other sessions (the server says how many).
 */
export function SignInSecurity(props: { access: ServerAccess; onChanged?: () => void }) {
  return (
    <section class="stack" aria-labelledby="security-title">
      <h2 id="security-title">Sign-in and security</h2>
      <EmailVerification access={props.access} />
      <AuthenticatorApp access={props.access} onChanged={props.onChanged} />
      <Passkeys access={props.access} onChanged={props.onChanged} />
    </section>
  )
}

/**
 * Whether your email is verified (by the link the server mails when it sends mail), with a button
 * that mails the link again while it is not. Nothing shows when you have no email.
 */
function EmailVerification(props: { access: ServerAccess }) {
  const [me, setMe] = useState<{ email: string | null; emailVerifiedAt: string | null } | null>(null)
  const [message, setMessage] = useState<Message>(null)
  useEffect(() => {
    let live = true
    serverCall<{ email: string | null; emailVerifiedAt: string | null }>(
      props.access,
      'GET',
      '/users/me',
    ).then(
      (answer) => live && setMe(answer),
      () => {},
    )
    return () => {
      live = false
    }
  }, [props.access])
  if (!me?.email) return null
  if (me.emailVerifiedAt) {
    return (
      <p data-email-verification="verified">
        Your email <strong>{me.email}</strong> is verified.
      </p>
    )
  }
  const sendAgain = async () => {
    setMessage(null)
    try {
      const sent = await serverCall<{ email: string }>(props.access, 'POST', '/users/me/email-verification')
      setMessage({ kind: 'ok', text: `A new link is on its way to ${sent.email}.` })
    } catch (e) {
      setMessage({ kind: 'error', text: errorMessage(e) })
    }
  }
  return (
    <div class="stack" data-email-verification="unverified">
      <p>
        Your email <strong>{me.email}</strong> is not verified: follow the link mailed to it. Until then it
        does not link a “Sign in with” account by itself.
      </p>
      <div>
        <button type="button" onClick={sendAgain}>
          Send again
        </button>
      </div>
      <Feedback message={message} />
    </div>
  )
}

function Feedback(props: { message: Message }) {
  if (!props.message) return null
  return (
    <p role={props.message.kind === 'error' ? 'alert' : 'status'} class={props.message.kind}>
      {props.message.text}
    </p>
  )
}

function RecoveryCodes(props: { codes: string[] }) {
  return (
    <div class="stack">
      <p>
        Your recovery codes, shown once: keep them somewhere safe. Each signs you in once in place of a code.
      </p>
      <ul aria-label="Recovery codes" class="recovery-codes">
        {props.codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
    </div>
  )
}

function AuthenticatorApp(props: { access: ServerAccess; onChanged?: () => void }) {
  const { access } = props
  const [status, setStatus] = useState<TotpStatus | null>(null)
  const [pending, setPending] = useState<{ secret: string; uri: string } | null>(null)
  const [code, setCode] = useState('')
  const [proof, setProof] = useState('')
  const [codes, setCodes] = useState<string[] | null>(null)
  const [message, setMessage] = useState<Message>(null)
  const [round, setRound] = useState(0)
  useEffect(() => {
    let live = true
    serverCall<TotpStatus>(access, 'GET', '/users/me/totp').then(
      (answer) => live && setStatus(answer),
      (e) => live && setMessage({ kind: 'error', text: errorMessage(e) }),
    )
    return () => {
      live = false
    }
  }, [access, round])
  const ended = (n: number) => (n > 0 ? ` ${n} other session${n === 1 ? '' : 's'} signed out.` : '')
  const run = async (work: () => Promise<string>) => {
    setMessage(null)
    try {
      setMessage({ kind: 'ok', text: await work() })
      setRound((r) => r + 1)
      props.onChanged?.()
    } catch (e) {
      setMessage({ kind: 'error', text: errorMessage(e) })
    }
  }
  const begin = () =>
    run(async () => {
      setCodes(null)
      setPending(await serverCall(access, 'POST', '/users/me/totp'))
      return 'Add this secret to your authenticator app, then enter the code it shows.'
    })
  const confirm = (event: Event) => {
    event.preventDefault()
    return run(async () => {
      const answer = await serverCall<{ recoveryCodes: string[]; sessionsEnded: number }>(
        access,
        'POST',
        '/users/me/totp/confirm',
        { body: { code: code.trim() } },
      )
      setPending(null)
      setCode('')
      setCodes(answer.recoveryCodes)
      return `The authenticator app is on: sign-in asks for its code.${ended(answer.sessionsEnded)}`
    })
  }
  const regenerate = () =>
    run(async () => {
      const answer = await serverCall<{ recoveryCodes: string[]; sessionsEnded: number }>(
        access,
        'POST',
        '/users/me/totp/recovery-codes',
        { body: proofOf(proof) },
      )
      setProof('')
      setCodes(answer.recoveryCodes)
      return `New recovery codes; the old ones no longer work.${ended(answer.sessionsEnded)}`
    })
  const remove = () =>
    run(async () => {
      const answer = await serverCall<{ sessionsEnded: number }>(access, 'POST', '/users/me/totp/remove', {
        body: proofOf(proof),
      })
      setProof('')
      setCodes(null)
      return `The authenticator app is removed: sign-in asks for the password alone.${ended(answer.sessionsEnded)}`
    })

  return (
    <section class="card stack" aria-labelledby="totp-title">
      <h3 id="totp-title">Authenticator app</h3>
      <Feedback message={message} />
      {/* Shown in the same render as the message that announces them, not after the status is read again. */}
      {codes && <RecoveryCodes codes={codes} />}
      {status === null ? (
        <p class="loading" aria-busy="true">
          Reading your second factor…
        </p>
      ) : status.enrolled ? (
        <>
          <p>
            On since {formatDate((status.confirmedAt ?? '').slice(0, 10))}; {status.recoveryCodesLeft}{' '}
            recovery code{status.recoveryCodesLeft === 1 ? '' : 's'} left.
          </p>
          <label>
            Your password, or a code from the app
            <input
              name="proof"
              type="password"
              autoComplete="current-password"
              value={proof}
              onInput={(e) => setProof(e.currentTarget.value)}
            />
          </label>
          <div class="row">
            <button type="button" disabled={proof === ''} onClick={regenerate}>
              New recovery codes
            </button>
            <button type="button" class="danger" disabled={proof === ''} onClick={remove}>
              Remove the authenticator app
            </button>
          </div>
        </>
      ) : pending ? (
        <form class="stack" onSubmit={confirm}>
          <label>
            Secret (base32)
            <input name="totpSecret" readOnly value={pending.secret} />
          </label>
          <label>
            Setup link for the app
            <input name="totpUri" readOnly value={pending.uri} />
          </label>
          <label>
            Code from the app
            <input
              name="totpCode"
              inputMode="numeric"
              autoComplete="one-time-code"
              required
              value={code}
              onInput={(e) => setCode(e.currentTarget.value)}
            />
          </label>
          <button type="submit" class="primary">
            Turn on
          </button>
        </form>
      ) : (
        <>
          <p class="muted">
            Sign-in asks only for your password. An authenticator app adds a code that changes every 30
            seconds.
          </p>
          <button type="button" onClick={begin}>
            Add an authenticator app
          </button>
        </>
      )}
    </section>
  )
}

function Passkeys(props: { access: ServerAccess; onChanged?: () => void }) {
  const { access } = props
  const [rows, setRows] = useState<PasskeyRow[] | null>(null)
  const [name, setName] = useState('')
  const [renaming, setRenaming] = useState<{ id: string; name: string } | null>(null)
  const [message, setMessage] = useState<Message>(null)
  const [round, setRound] = useState(0)
  const supported = typeof window !== 'undefined' && 'PublicKeyCredential' in window
  useEffect(() => {
    let live = true
    serverCall<{ items: PasskeyRow[] }>(access, 'GET', '/users/me/passkeys').then(
      (answer) => live && setRows(answer.items),
      (e) => live && setMessage({ kind: 'error', text: errorMessage(e) }),
    )
    return () => {
      live = false
    }
  }, [access, round])
  const run = async (work: () => Promise<string>) => {
    setMessage(null)
    try {
      setMessage({ kind: 'ok', text: await work() })
      setRound((r) => r + 1)
      props.onChanged?.()
    } catch (e) {
      setMessage({
        kind: 'error',
        text:
          e instanceof Error && e.name === 'NotAllowedError'
            ? 'No passkey was made: the browser’s prompt was closed or timed out.'
            : errorMessage(e),
      })
    }
  }
  const add = (event: Event) => {
    event.preventDefault()
    return run(async () => {
      const { startRegistration } = await import('@simplewebauthn/browser')
      const optionsJSON = await serverCall<Parameters<typeof startRegistration>[0]['optionsJSON']>(
        access,
        'POST',
        '/users/me/passkeys/options',
      )
      const response = await startRegistration({ optionsJSON })
      const added = await serverCall<PasskeyRow>(access, 'POST', '/users/me/passkeys', {
        body: { name: name.trim(), response },
      })
      setName('')
      return `Passkey “${added.name}” added: you can sign in with it.`
    })
  }
  const rename = (event: Event) => {
    event.preventDefault()
    if (!renaming) return
    return run(async () => {
      const renamed = await serverCall<PasskeyRow>(access, 'PATCH', `/users/me/passkeys/${renaming.id}`, {
        body: { name: renaming.name.trim() },
      })
      setRenaming(null)
      return `Renamed to “${renamed.name}”.`
    })
  }
  const remove = (row: PasskeyRow) =>
    run(async () => {
      const answer = await serverCall<{ sessionsEnded: number }>(
        access,
        'DELETE',
        `/users/me/passkeys/${row.id}`,
      )
      const n = answer.sessionsEnded
      return `Passkey “${row.name}” removed.${n > 0 ? ` ${n} other session${n === 1 ? '' : 's'} signed out.` : ''}`
    })

  return (
    <section class="card stack" aria-labelledby="passkeys-title">
      <h3 id="passkeys-title">Passkeys</h3>
      <Feedback message={message} />
      {rows === null ? (
        <p class="loading" aria-busy="true">
          Reading your passkeys…
        </p>
      ) : rows.length === 0 ? (
        <p class="muted">No passkeys yet: sign-in uses your password.</p>
      ) : (
        <table class="table" aria-label="Your passkeys">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Added</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id}>
                <td>
                  {renaming?.id === row.id ? (
                    <form onSubmit={rename} class="row">
                      <label>
                        <span class="visually-hidden">New name for {row.name}</span>
                        <input
                          name="passkeyName"
                          required
                          value={renaming.name}
                          onInput={(e) => setRenaming({ id: row.id, name: e.currentTarget.value })}
                        />
                      </label>
                      <button type="submit">Save</button>
                    </form>
                  ) : (
                    row.name
                  )}
                </td>
                <td>{formatDate(row.createdAt.slice(0, 10))}</td>
                <td>{row.lastUsedAt ? formatDate(row.lastUsedAt.slice(0, 10)) : 'Never'}</td>
                <td>
                  <button
                    type="button"
                    class="ghost"
                    aria-label={`Rename ${row.name}`}
                    onClick={() => setRenaming({ id: row.id, name: row.name })}
                  >
                    Rename
                  </button>
                  <button
                    type="button"
                    class="ghost"
                    aria-label={`Remove ${row.name}`}
                    onClick={() => remove(row)}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {supported ? (
        <form class="row" onSubmit={add}>
          <label>
            Passkey name
            <input
              name="newPasskeyName"
              required
              placeholder="This laptop"
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
            />
          </label>
          <button type="submit">Add a passkey</button>
        </form>
      ) : (
        <p class="muted">This browser cannot make passkeys.</p>
      )}
    </section>
  )
}
