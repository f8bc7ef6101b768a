import { useEffect, useState } from 'preact/hooks'
import { errorMessage } from '../format.ts'
import {
  listHouseholds,
  type MyHousehold,
  newStoreName,
  passkeysSupported,
  redeemInvitation,
  redeemInvitationWithPasskey,
  redeemSignInLink,
  redeemSignInLinkWithPasskey,
  ServerRefusal,
  type Session,
  serverUrl,
  signInWithKey,
  signInWithPasskey,
  signInWithPassword,
  verifyEmail,
} from '../session.ts'
import { OidcSignIn } from './oidc-sign-in.tsx'

type Mode = 'password' | 'key' | 'invitation'

/**
 * Sign in with an email and password (or an API key, exchanged for a session), or join with an
 * invitation code; then pick a household when the person has more than one. The server keeps the
 * session in an HttpOnly cookie: nothing typed here is stored in the browser.
 */
export function SignInScreen(props: { onSignedIn: (session: Session) => void }) {
  const [mode, setMode] = useState<Mode>('password')
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [token, setToken] = useState('')
  const [code, setCode] = useState('')
  const [name, setName] = useState('')
  const [deviceName, setDeviceName] = useState(defaultDeviceName())
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [choices, setChoices] = useState<MyHousehold[] | null>(null)
  // Asked for after a right password when the person has an authenticator app.
  const [secondFactor, setSecondFactor] = useState<'totp' | 'recovery' | null>(null)
  const [factorCode, setFactorCode] = useState('')
  const device = () => deviceName.trim() || defaultDeviceName()

  const finish = (household: MyHousehold) =>
    props.onSignedIn({
      serverUrl: serverUrl(),
      householdId: household.id,
      householdName: household.name,
      store: newStoreName(household.id),
      deviceName: device(),
    })

  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    try {
      if (mode === 'invitation') {
        finish(await redeemInvitation(code.trim(), name.trim(), email.trim(), password, device()))
        return
      }
      if (mode === 'key') await signInWithKey(token.trim(), device())
      else
        await signInWithPassword(
          email.trim(),
          password,
          device(),
          secondFactor === 'totp'
            ? { totpCode: factorCode.trim() }
            : secondFactor === 'recovery'
              ? { recoveryCode: factorCode.trim() }
              : {},
        )
      await chooseHousehold(finish, setChoices, setError)
    } catch (e) {
      if (e instanceof ServerRefusal && e.code === 'SECOND_FACTOR_REQUIRED') setSecondFactor('totp')
      else setError(errorMessage(e))
    } finally {
      setBusy(false)
    }
  }

  const withPasskey = async () => {
    setBusy(true)
    setError(null)
    try {
      await signInWithPasskey(device())
      await chooseHousehold(finish, setChoices, setError)
    } catch (e) {
      setError(passkeyError(e, 'used'))
    } finally {
      setBusy(false)
    }
  }

  // Joining with a passkey in place of the password: the same fields but the password.
  const joinWithPasskey = async () => {
    const missing = [
      ['the invitation code', code],
      ['your name', name],
      ['your email', email],
    ].filter(([, value]) => !value!.trim())
    if (missing.length > 0) {
      setError(`Fill in ${missing.map(([what]) => what).join(', ')} first.`)
      return
    }
    setBusy(true)
    setError(null)
    try {
      finish(await redeemInvitationWithPasskey(code.trim(), name.trim(), email.trim(), device()))
    } catch (e) {
      setError(passkeyError(e, 'made'))
    } finally {
      setBusy(false)
    }
  }

  if (choices) return <HouseholdChoice households={choices} onChoose={finish} />

  return (
    <main class="signin">
      <section class="card signin-card" aria-labelledby="signin-title">
        <div class="brand-large" aria-hidden="true">
          <img src={`${import.meta.env.BASE_URL}icon.svg`} alt="" width="48" height="48" />
        </div>
        <h1 id="signin-title">Welcome to Hearth</h1>
        <p class="muted">Your household’s money, on this device and in sync.</p>
        <OidcSignIn
          onReturned={() =>
            chooseHousehold(finish, setChoices, setError).catch((e) => setError(errorMessage(e)))
          }
        />
        <div class="segmented" role="tablist" aria-label="How to sign in">
          {(
            [
              ['password', 'Email'],
              ['invitation', 'Invitation code'],
              ['key', 'API key'],
            ] as const
          ).map(([value, label]) => (
            <button
              key={value}
              type="button"
              role="tab"
              aria-selected={mode === value}
              onClick={() => setMode(value)}
            >
              {label}
            </button>
          ))}
        </div>
        <form onSubmit={submit} class="stack">
          {mode === 'invitation' && (
            <>
              <label>
                Invitation code
                <input name="code" required value={code} onInput={(e) => setCode(e.currentTarget.value)} />
              </label>
              <label>
                Your name
                <input name="name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
              </label>
            </>
          )}
          {mode === 'key' ? (
            <label>
              API key
              <input
                name="token"
                type="password"
                autoComplete="off"
                required
                placeholder="hth_…"
                value={token}
                onInput={(e) => setToken(e.currentTarget.value)}
              />
            </label>
          ) : (
            <>
              <label>
                Email
                <input
                  name="email"
                  type="email"
                  autoComplete="username"
                  required
                  value={email}
                  onInput={(e) => setEmail(e.currentTarget.value)}
                />
              </label>
              <label>
                Password{mode === 'invitation' && <span class="muted"> (at least 12 characters)</span>}
                <input
                  name="password"
                  type="password"
                  autoComplete={mode === 'invitation' ? 'new-password' : 'current-password'}
                  required
                  minLength={mode === 'invitation' ? 12 : undefined}
                  value={password}
                  onInput={(e) => setPassword(e.currentTarget.value)}
                />
              </label>
            </>
          )}
          {mode === 'password' && secondFactor && (
            <SecondFactorField
              kind={secondFactor}
              value={factorCode}
              onInput={setFactorCode}
              onSwitch={() => {
                setSecondFactor(secondFactor === 'totp' ? 'recovery' : 'totp')
                setFactorCode('')
              }}
            />
          )}
          <label>
            This device’s name <span class="muted">(shown to the others online)</span>
            <input
              name="deviceName"
              value={deviceName}
              onInput={(e) => setDeviceName(e.currentTarget.value)}
            />
          </label>
          {error && (
            <p role="alert" class="error">
              {error}
            </p>
          )}
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Signing in…' : mode === 'invitation' ? 'Join the household' : 'Sign in'}
          </button>
          {mode === 'password' && (
            <button type="button" disabled={busy} onClick={withPasskey}>
              Sign in with a passkey
            </button>
          )}
          {mode === 'invitation' && <UsePasskeyInstead busy={busy} onClick={joinWithPasskey} />}
        </form>
      </section>
    </main>
  )
}

/** The second step of a sign-in: a code of the authenticator app, or a recovery code. */
function SecondFactorField(props: {
  kind: 'totp' | 'recovery'
  value: string
  onInput: (value: string) => void
  onSwitch: () => void
}) {
  return (
    <div class="stack">
      <p role="status">
        {props.kind === 'totp'
          ? 'Your password is right. Enter the code your authenticator app shows.'
          : 'Enter one of your recovery codes; each works once.'}
      </p>
      <label>
        {props.kind === 'totp' ? 'Authenticator code' : 'Recovery code'}
        <input
          name={props.kind === 'totp' ? 'totpCode' : 'recoveryCode'}
          autoComplete="one-time-code"
          inputMode={props.kind === 'totp' ? 'numeric' : 'text'}
          required
          value={props.value}
          onInput={(e) => props.onInput(e.currentTarget.value)}
        />
      </label>
      <button type="button" class="ghost" onClick={props.onSwitch}>
        {props.kind === 'totp' ? 'Use a recovery code instead' : 'Use the authenticator app instead'}
      </button>
    </div>
  )
}

/**
 * Sets the password with the one-time link printed at first start (or an owner's reset link), at
 * `/app/setup?code=…`, and signs in.
 */
export function SetupScreen(props: { code: string; onSignedIn: (session: Session) => void }) {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [choices, setChoices] = useState<MyHousehold[] | null>(null)
  const finish = (household: MyHousehold) =>
    props.onSignedIn({
      serverUrl: serverUrl(),
      householdId: household.id,
      householdName: household.name,
      store: newStoreName(household.id),
      deviceName: defaultDeviceName(),
    })
  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    try {
      await redeemSignInLink(props.code, password, email.trim() || undefined, defaultDeviceName())
      await chooseHousehold(finish, setChoices, setError)
    } catch (e) {
      setError(errorMessage(e))
    } finally {
      setBusy(false)
    }
  }
  const withPasskey = async () => {
    setBusy(true)
    setError(null)
    try {
      await redeemSignInLinkWithPasskey(props.code, email.trim() || undefined, defaultDeviceName())
      await chooseHousehold(finish, setChoices, setError)
    } catch (e) {
      setError(passkeyError(e, 'made'))
    } finally {
      setBusy(false)
    }
  }
  if (choices) return <HouseholdChoice households={choices} onChoose={finish} />
  return (
    <main class="signin">
      <section class="card signin-card" aria-labelledby="setup-title">
        <h1 id="setup-title">Choose how you sign in</h1>
        <p class="muted">
          This link works once. Use at least 12 characters; a few unrelated words make a good password. Or use
          a passkey instead: this device (or your phone) signs you in, with no password.
        </p>
        <form onSubmit={submit} class="stack">
          <label>
            Email <span class="muted">(you sign in with it; leave empty if you have one already)</span>
            <input
              name="email"
              type="email"
              autoComplete="username"
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
          </label>
          <label>
            New password
            <input
              name="password"
              type="password"
              autoComplete="new-password"
              required
              minLength={12}
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          </label>
          {error && (
            <p role="alert" class="error">
              {error}
            </p>
          )}
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Saving…' : 'Set password and sign in'}
          </button>
          <UsePasskeyInstead busy={busy} onClick={withPasskey} />
        </form>
      </section>
    </main>
  )
}

/**
 * The button that makes a passkey in place of a password (at the setup link, or joining with an
 * invitation); a browser that cannot make passkeys is told so beside it.
 */
function UsePasskeyInstead(props: { busy: boolean; onClick: () => void }) {
  const supported = passkeysSupported()
  return (
    <>
      <button type="button" disabled={props.busy || !supported} onClick={props.onClick}>
        Use a passkey instead
      </button>
      {!supported && <p class="muted">This browser cannot make passkeys: set a password instead.</p>}
    </>
  )
}

/** A passkey prompt's failure in words: closed or timed out, or the server's refusal. */
function passkeyError(e: unknown, what: 'used' | 'made'): string {
  if (e instanceof Error && e.name === 'NotAllowedError') {
    return what === 'used'
      ? 'No passkey was used: the browser’s prompt was closed or timed out.'
      : 'No passkey was made: the browser’s prompt was closed or timed out. Nothing was used up; try again, or set a password.'
  }
  return errorMessage(e)
}

/** After sign-in: the one household at once, a choice of several, or a word that there is none. */
async function chooseHousehold(
  finish: (household: MyHousehold) => void,
  setChoices: (households: MyHousehold[]) => void,
  setError: (message: string) => void,
): Promise<void> {
  const households = await listHouseholds()
  if (households.length === 0) setError('You belong to no household yet.')
  else if (households.length === 1) finish(households[0]!)
  else setChoices(households)
}

function HouseholdChoice(props: { households: MyHousehold[]; onChoose: (household: MyHousehold) => void }) {
  return (
    <main class="signin">
      <section class="card signin-card" aria-labelledby="pick-title">
        <h1 id="pick-title">Choose a household</h1>
        <ul class="household-list">
          {props.households.map((h) => (
            <li key={h.id}>
              <button type="button" class="household-choice" onClick={() => props.onChoose(h)}>
                <span class="household-name">{h.name}</span>
                <span class="muted">
                  {h.role} · {h.baseCurrency}
                </span>
              </button>
            </li>
          ))}
        </ul>
      </section>
    </main>
  )
}

function defaultDeviceName(): string {
  const ua = navigator.userAgent
  const browser = /Firefox/.test(ua)
    ? 'Firefox'
    : /Edg\//.test(ua)
      ? 'Edge'
      : /Chrom/.test(ua)
        ? 'Chrome'
        : 'Browser'
  return `${browser} on ${/Mac/.test(ua) ? 'Mac' : /Windows/.test(ua) ? 'Windows' : /Android/.test(ua) ? 'Android' : /iPhone|iPad/.test(ua) ? 'iOS' : 'Linux'}`
}

/**
 * The page a mailed email verification link opens (`/app/verify-email?code=…`): it verifies the
 * email with the link's code, once, and says how that went.
 */
export function VerifyEmailScreen(props: { code: string }) {
  const [state, setState] = useState<{ ok: boolean; text: string } | null>(null)
  useEffect(() => {
    let live = true
    verifyEmail(props.code).then(
      (answer) => live && setState({ ok: true, text: `Your email ${answer.email} is verified. Thank you.` }),
      (e) => live && setState({ ok: false, text: errorMessage(e) }),
    )
    return () => {
      live = false
    }
  }, [props.code])
  return (
    <main class="signin">
      <section class="card signin-card" aria-labelledby="verify-title" aria-busy={state === null}>
        <h1 id="verify-title">Verify your email</h1>
        {state === null ? (
          <p class="muted">Verifying…</p>
        ) : (
          <p role={state.ok ? 'status' : 'alert'}>{state.text}</p>
        )}
        <p>
          <a href="/app/">Open Hearth</a>
        </p>
      </section>
    </main>
  )
}
