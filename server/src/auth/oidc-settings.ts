/** OpenID Connect sign-in, when configured (docs/security.md, OpenID Connect). */
export interface OidcSettings {
  /** The provider's issuer URL (`HEARTH_OIDC_ISSUER`); its discovery document is read from there. */
  issuer: string
  /** This server's client at the provider (`HEARTH_OIDC_CLIENT_ID`, `HEARTH_OIDC_CLIENT_SECRET`). */
  clientId: string
  clientSecret: string
  /** What the sign-in button calls the provider (`HEARTH_OIDC_NAME`), "OpenID" by default. */
  name: string
  /** Password sign-in is refused: people sign in with the provider (`HEARTH_OIDC_REQUIRED=on`). */
  required: boolean
}

/** Reads the OpenID Connect settings; none without an issuer, and a half-set one stops start-up naming what is missing. */
export function oidcSettingsFromEnv(env: NodeJS.ProcessEnv): OidcSettings | undefined {
  const issuer = env.HEARTH_OIDC_ISSUER || undefined
  const required = env.HEARTH_OIDC_REQUIRED || 'off'
  if (required !== 'on' && required !== 'off') {
    throw new Error(`HEARTH_OIDC_REQUIRED must be on or off, got "${required}".`)
  }
  if (!issuer) {
    if (required === 'on') throw new Error('HEARTH_OIDC_REQUIRED=on needs HEARTH_OIDC_ISSUER.')
    return undefined
  }
  let url: URL
  try {
    url = new URL(issuer)
  } catch {
    throw new Error(`HEARTH_OIDC_ISSUER must be a URL, got "${issuer}".`)
  }
  if (url.protocol !== 'https:' && !isLoopback(url)) {
    throw new Error(`HEARTH_OIDC_ISSUER must be https (plain http only on this machine), got "${issuer}".`)
  }
  const clientId = env.HEARTH_OIDC_CLIENT_ID
  const clientSecret = env.HEARTH_OIDC_CLIENT_SECRET
  if (!clientId || !clientSecret) {
    throw new Error('HEARTH_OIDC_ISSUER needs HEARTH_OIDC_CLIENT_ID and HEARTH_OIDC_CLIENT_SECRET.')
  }
  return {
    issuer,
    clientId,
    clientSecret,
    name: env.HEARTH_OIDC_NAME || 'OpenID',
    required: required === 'on',
  }
}

/** Whether a URL names this machine, where plain http is allowed (a provider in a test, a local one). */
export function isLoopback(url: URL): boolean {
  return url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]'
}
