import { useEffect, useState } from 'preact/hooks'
import { errorMessage } from '../format.ts'
import { type ServerAccess, serverCall } from '../server-calls.ts'
import { serverUrl } from '../session.ts'

/** The server's OpenID Connect provider, as `GET /oidc` names it. */
interface OidcProvider {
  enabled: boolean
  name: string | null
  required: boolean
}

/** Words for each way a sign-in with the provider can come back without signing anyone in. */
const FAILURES: Record<string, string> = {
  OIDC_NO_ACCOUNT:
    'No one in Hearth uses this account yet. Sign in another way and link it from Devices, or ask an owner for an invitation.',
  OIDC_DENIED: 'The provider did not sign you in.',
  OIDC_FLOW_EXPIRED: 'Signing in took too long or began in another window; try again.',
  OIDC_FAILED: 'The provider’s answer could not be checked; try again.',
  OIDC_UNAVAILABLE: 'The provider could not be reached; try again later.',
  OIDC_NOT_SIGNED_IN: 'Sign in first, then link your account from Devices.',
  IDENTITY_TAKEN: 'That account at the provider already signs in someone else.',
}

/** Reads the server's provider once; null while it is being read, or when it cannot be. */
function useOidcProvider(): OidcProvider | null {
  const [provider, setProvider] = useState<OidcProvider | null>(null)
  useEffect(() => {
    fetch(`${serverUrl()}/oidc`)
      .then((r) => (r.ok ? (r.json() as Promise<OidcProvider>) : null))
      .then(setProvider, () => setProvider(null))
  }, [])
  return provider
}

/**
 * "Sign in with <provider>" on the sign-in screen when the server has one, the words for a sign-in
 * that came back refused, and, once the provider signed this browser in (`?signedIn=oidc`), the
 * next step (`onReturned`: choosing the household).
 */
export function OidcSignIn(props: { onReturned: () => void }) {
  const provider = useOidcProvider()
  const params = new URLSearchParams(location.search)
  const failure = params.get('oidcError')
  useEffect(() => {
    if (params.get('signedIn') !== 'oidc') return
    history.replaceState(null, '', location.pathname)
    props.onReturned()
  }, [])
  return (
    <>
      {failure && (
        <p role="alert" class="error">
          {FAILURES[failure] ?? 'Signing in with the provider failed; try again.'}
        </p>
      )}
      {provider?.enabled && (
        <div class="stack">
          <a class="button primary" href={`${serverUrl()}/oidc/sign-in`}>
            Sign in with {provider.name}
          </a>
          {provider.required && <p class="muted">This server signs people in with {provider.name} only.</p>}
        </div>
      )}
    </>
  )
}

/** On the devices screen: link your account at the provider, so it signs you in. */
export function OidcLink(props: { access: ServerAccess }) {
  const provider = useOidcProvider()
  const [error, setError] = useState<string | null>(null)
  const linked = new URLSearchParams(location.search).get('oidcLinked') === '1'
  if (!provider?.enabled) return null
  const start = () =>
    serverCall<{ url: string }>(props.access, 'POST', '/users/me/oidc-identities').then(
      ({ url }) => location.assign(url),
      (e) => setError(errorMessage(e)),
    )
  return (
    <p>
      {linked ? (
        <span role="status">Your {provider.name} account is linked: it signs you in.</span>
      ) : (
        <button type="button" onClick={start}>
          Link your {provider.name} account
        </button>
      )}
      {error && (
        <span role="alert" class="error">
          {' '}
          {error}
        </span>
      )}
    </p>
  )
}
