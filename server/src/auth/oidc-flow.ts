import type { Context } from 'hono'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import * as client from 'openid-client'
import { isLoopback, type OidcSettings } from './oidc-settings.ts'
import { secureCookie } from './session-cookie.ts'
import type { SessionSettings } from './session-settings.ts'

/** What a sign-in with the provider is for: signing in, or linking the signed-in person's identity. */
export type OidcPurpose = 'sign-in' | 'link'

/** The browser's side of one authorization request, kept in its cookie until the provider sends it back. */
interface PendingFlow {
  state: string
  nonce: string
  verifier: string
  purpose: OidcPurpose
}

/** The cookie that carries a pending flow: HttpOnly, for `/oidc` only, ten minutes. */
const FLOW_COOKIE = 'hearth_oidc'
const FLOW_SECONDS = 600

/** A verified identity: the provider's issuer and subject, and its email when the provider verified it. */
export interface VerifiedIdentity {
  issuer: string
  subject: string
  verifiedEmail: string | null
  email: string | null
}

/**
 * The authorization-code flow with PKCE, state and nonce against one provider, through
 * `openid-client`; the provider's metadata is discovered once, and again after a failure.
 */
export class OidcFlow {
  private discovered: Promise<client.Configuration> | null = null

  constructor(
    readonly settings: OidcSettings,
    private readonly sessions: SessionSettings,
  ) {}

  /** Starts a flow: remembers it in the browser's cookie and answers where to send the browser. */
  async start(c: Context, purpose: OidcPurpose): Promise<string> {
    const config = await this.configuration()
    const flow: PendingFlow = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      verifier: client.randomPKCECodeVerifier(),
      purpose,
    }
    setCookie(c, FLOW_COOKIE, Buffer.from(JSON.stringify(flow)).toString('base64url'), {
      httpOnly: true,
      sameSite: 'Lax',
      secure: secureCookie(c, this.sessions),
      path: '/oidc',
      maxAge: FLOW_SECONDS,
    })
    return client
      .buildAuthorizationUrl(config, {
        redirect_uri: this.redirectUri(c),
        scope: 'openid email profile',
        state: flow.state,
        nonce: flow.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(flow.verifier),
        code_challenge_method: 'S256',
      })
      .toString()
  }

  /**
   * Finishes a flow at the callback: the code is exchanged (checking state, nonce and PKCE) and the
   * ID token's identity answered with the flow's purpose; the flow's cookie is spent either way.
   */
  async finish(c: Context): Promise<{ purpose: OidcPurpose; identity: VerifiedIdentity }> {
    const flow = readFlow(getCookie(c, FLOW_COOKIE))
    deleteCookie(c, FLOW_COOKIE, { path: '/oidc' })
    if (!flow)
      throw new OidcFailure('OIDC_FLOW_EXPIRED', 'The sign-in took too long or began elsewhere; try again.')
    const config = await this.configuration()
    // The URL the provider redirected to, as registered there (this server's public origin).
    const current = new URL(this.redirectUri(c))
    current.search = new URL(c.req.url).search
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>
    try {
      tokens = await client.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      })
    } catch (error) {
      throw new OidcFailure('OIDC_FAILED', `The provider’s answer was refused: ${(error as Error).message}`)
    }
    const claims = tokens.claims()
    if (!claims) throw new OidcFailure('OIDC_FAILED', 'The provider sent no ID token.')
    // A provider that keeps the email out of the ID token (as the spec has it) answers it at userinfo.
    const profile =
      claims.email === undefined
        ? await client.fetchUserInfo(config, tokens.access_token, claims.sub).catch(() => claims)
        : claims
    const email = typeof profile.email === 'string' ? profile.email : null
    return {
      purpose: flow.purpose,
      identity: {
        issuer: claims.iss,
        subject: claims.sub,
        email,
        verifiedEmail: email && profile.email_verified === true ? email : null,
      },
    }
  }

  /** The provider's issuer as its metadata names it: what linked identities are stored under. */
  async issuer(): Promise<string> {
    return (await this.configuration()).serverMetadata().issuer
  }

  /** Where the provider sends the browser back: `/oidc/callback` at the public URL, else this request's origin. */
  private redirectUri(c: Context): string {
    return `${this.sessions.publicUrl ?? new URL(c.req.url).origin}/oidc/callback`
  }

  private configuration(): Promise<client.Configuration> {
    const { issuer, clientId, clientSecret } = this.settings
    this.discovered ??= client
      .discovery(new URL(issuer), clientId, clientSecret, undefined, {
        ...(isLoopback(new URL(issuer)) && { execute: [client.allowInsecureRequests] }),
      })
      .catch((error: Error) => {
        this.discovered = null
        throw new OidcFailure('OIDC_UNAVAILABLE', `The provider could not be reached: ${error.message}`)
      })
    return this.discovered
  }
}

/** Why a flow did not sign anyone in, with a stable code the app shows words for. */
export class OidcFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'OidcFailure'
  }
}

function readFlow(cookie: string | undefined): PendingFlow | null {
  if (!cookie) return null
  try {
    const flow = JSON.parse(Buffer.from(cookie, 'base64url').toString('utf8')) as PendingFlow
    const ok =
      typeof flow.state === 'string' &&
      typeof flow.nonce === 'string' &&
      typeof flow.verifier === 'string' &&
      (flow.purpose === 'sign-in' || flow.purpose === 'link')
    return ok ? flow : null
  } catch {
    return null
  }
}
