import { useState } from 'preact/hooks'
import { errorMessage } from '../format.ts'
import { listHouseholds, type MyHousehold, newStoreName, redeemInvitation, type Session } from '../session.ts'

/**
 * Sign in with a server URL and an API key, or join with an invitation code; then pick a
 * household when the key's user has more than one.
 */
export function SignInScreen(props: { onSignedIn: (session: Session) => void }) {
  const [mode, setMode] = useState<'key' | 'invitation'>('key')
  const [serverUrl, setServerUrl] = useState(location.origin)
  const [token, setToken] = useState('')
  const [code, setCode] = useState('')
  const [name, setName] = useState('')
  const [deviceName, setDeviceName] = useState(defaultDeviceName())
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [choices, setChoices] = useState<{ token: string; households: MyHousehold[] } | null>(null)

  const finish = (key: string, household: MyHousehold) =>
    props.onSignedIn({
      serverUrl,
      token: key,
      householdId: household.id,
      householdName: household.name,
      store: newStoreName(household.id),
      deviceName: deviceName.trim() || defaultDeviceName(),
    })

  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    try {
      if (mode === 'invitation') {
        const joined = await redeemInvitation(serverUrl, code.trim(), name.trim())
        finish(joined.token, joined.household)
        return
      }
      const households = await listHouseholds(serverUrl, token.trim())
      if (households.length === 0) setError('This key’s user belongs to no household yet.')
      else if (households.length === 1) finish(token.trim(), households[0]!)
      else setChoices({ token: token.trim(), households })
    } catch (e) {
      setError(errorMessage(e))
    } finally {
      setBusy(false)
    }
  }

  if (choices) {
    return (
      <main class="signin">
        <section class="card signin-card" aria-labelledby="pick-title">
          <h1 id="pick-title">Choose a household</h1>
          <ul class="household-list">
            {choices.households.map((h) => (
              <li key={h.id}>
                <button type="button" class="household-choice" onClick={() => finish(choices.token, h)}>
                  <span class="household-name">{h.name}</span>
                  <span class="muted">
                    {h.role} · {h.baseCurrency}
                  </span>
                </button>
              </li>
            ))}
          </ul>
          <button type="button" class="link" onClick={() => setChoices(null)}>
            Use another key
          </button>
        </section>
      </main>
    )
  }

  return (
    <main class="signin">
      <section class="card signin-card" aria-labelledby="signin-title">
        <div class="brand-large" aria-hidden="true">
          <img src={`${import.meta.env.BASE_URL}icon.svg`} alt="" width="48" height="48" />
        </div>
        <h1 id="signin-title">Welcome to Hearth</h1>
        <p class="muted">Your household’s money, on this device and in sync.</p>
        <div class="segmented" role="tablist" aria-label="How to sign in">
          <button type="button" role="tab" aria-selected={mode === 'key'} onClick={() => setMode('key')}>
            API key
          </button>
          <button
            type="button"
            role="tab"
            aria-selected={mode === 'invitation'}
            onClick={() => setMode('invitation')}
          >
            Invitation code
          </button>
        </div>
        <form onSubmit={submit} class="stack">
          <label>
            Server URL
            <input
              name="serverUrl"
              type="url"
              required
              value={serverUrl}
              onInput={(e) => setServerUrl(e.currentTarget.value)}
            />
          </label>
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
                Invitation code
                <input name="code" required value={code} onInput={(e) => setCode(e.currentTarget.value)} />
              </label>
              <label>
                Your name
                <input name="name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
              </label>
            </>
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
            {busy ? 'Signing in…' : mode === 'key' ? 'Sign in' : 'Join the household'}
          </button>
        </form>
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
