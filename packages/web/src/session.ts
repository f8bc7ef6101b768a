import type { Hearth } from '@hearth/client'

/**
 * What this browser remembers after sign-in (localStorage): enough to open the replica offline,
 * and no credential. The session's secret lives in an HttpOnly cookie that no script can read;
 * the page's requests and sockets to its own server carry it by themselves.
 */
export interface Session {
  /** The server: the origin that served this page. */
  serverUrl: string
  householdId: string
  householdName: string
  /** The IndexedDB store of this sign-in's replica (`idb://…`). */
  store: string
  deviceName: string
}

const KEY = 'hearth.session'

export function loadSession(): Session | null {
  try {
    const raw = localStorage.getItem(KEY)
    if (!raw) return null
    const session = JSON.parse(raw) as Session & { token?: string }
    // A sign-in from before sessions kept an API key here: drop it, and sign in again.
    if (session.token !== undefined) {
      localStorage.removeItem(KEY)
      return null
    }
    return session
  } catch {
    return null
  }
}

export function saveSession(session: Session): void {
  localStorage.setItem(KEY, JSON.stringify(session))
}

export function forgetSession(): void {
  localStorage.removeItem(KEY)
}

/** The server this page came from: the app is served by the server it syncs with. */
export function serverUrl(): string {
  return location.origin
}

/**
 * Opens the household's replica in IndexedDB and starts syncing, signed in by the session cookie.
 * With the household's id (not `current`), a replica already on the device opens without the
 * network; a server that says the session has ended is refused with `SIGNED_OUT`.
 */
export async function openHearth(session: Session): Promise<Hearth> {
  if ((await signedIn()) === false) {
    throw Object.assign(
      new Error('Your session has ended (signed out elsewhere, or expired). Sign in again.'),
      {
        code: 'SIGNED_OUT',
      },
    )
  }
  // The SDK, the engine and PGlite are chunks of their own, fetched while the budget paints from
  // what it showed last time. Zod's configuration is evaluated first, before any of their modules
  // (one import after the other: a chunk's static imports are evaluated before its own code).
  await import('./zod-without-eval.ts')
  const { createHearth } = await import('@hearth/client')
  const start = performance.now()
  const hearth = await createHearth({
    serverUrl: serverUrl(),
    household: session.householdId,
    store: session.store,
    deviceName: session.deviceName,
    // A new replica starts from the build's migrated template (vite.config.ts), from the cache offline.
    replicaTemplate: async () => {
      const response = await fetch('/app/replica-template.tgz')
      return response.ok ? new Blob([await response.arrayBuffer()], { type: 'application/gzip' }) : null
    },
  })
  // The replica open, migrated and reconciled with its queue (the bench and tests read it).
  performance.measure('hearth: household open', { start })
  return hearth
}

/** Whether the cookie still signs this browser in: false on 401, null when the server cannot be reached. */
export async function signedIn(): Promise<boolean | null> {
  try {
    const response = await fetch(new URL('/users/me', serverUrl()), { credentials: 'same-origin' })
    return response.status !== 401
  } catch {
    return null
  }
}

/** A refusal from the server, with its problem+json `code` and `detail`. */
export class ServerRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

async function call<T>(path: string, init: RequestInit): Promise<T> {
  let response: Response
  try {
    response = await fetch(new URL(path, serverUrl()), {
      ...init,
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
    })
  } catch {
    throw new ServerRefusal(0, 'UNREACHABLE', `The server at ${serverUrl()} cannot be reached.`)
  }
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>
  if (!response.ok) {
    throw new ServerRefusal(
      response.status,
      String(body.code ?? `HTTP_${response.status}`),
      String(body.detail ?? body.title ?? response.statusText),
    )
  }
  return body as T
}

export interface MyHousehold {
  id: string
  name: string
  role: 'owner' | 'member'
  baseCurrency: string
}

/**
 * Signs in with an email and password, and the second factor when the person has an authenticator
 * app (the server answers `SECOND_FACTOR_REQUIRED` without one); the server sets the session cookie.
 */
export async function signInWithPassword(
  email: string,
  password: string,
  deviceName: string,
  secondFactor: { totpCode?: string; recoveryCode?: string } = {},
): Promise<void> {
  await call('/sessions', {
    method: 'POST',
    body: JSON.stringify({ email, password, ...secondFactor, deviceName }),
  })
}

/** Signs in with a passkey of this browser or a phone nearby; the server sets the session cookie. */
export async function signInWithPasskey(deviceName: string): Promise<void> {
  const { startAuthentication } = await import('@simplewebauthn/browser')
  const optionsJSON = await call<Parameters<typeof startAuthentication>[0]['optionsJSON']>(
    '/sessions/passkey/options',
    { method: 'POST' },
  )
  const response = await startAuthentication({ optionsJSON })
  await call('/sessions/passkey', { method: 'POST', body: JSON.stringify({ response, deviceName }) })
}

/** Exchanges an API key for a session cookie; the key is kept nowhere. */
export async function signInWithKey(apiKey: string, deviceName: string): Promise<void> {
  await call('/sessions', { method: 'POST', body: JSON.stringify({ apiKey, deviceName }) })
}

/** Sets a password with a setup or reset link's code, and signs in. */
export async function redeemSignInLink(
  code: string,
  password: string,
  email: string | undefined,
  deviceName: string,
): Promise<void> {
  await call('/sign-in-links/redeem', {
    method: 'POST',
    body: JSON.stringify({ code, password, ...(email && { email }), deviceName }),
  })
}

/** Verifies an email with the code of the link mailed to it (no sign-in needed); answers the email. */
export async function verifyEmail(code: string): Promise<{ email: string; emailVerifiedAt: string }> {
  return call('/email-verifications/verify', { method: 'POST', body: JSON.stringify({ code }) })
}

/** Whether this browser can make and use passkeys (WebAuthn). */
export function passkeysSupported(): boolean {
  return typeof window !== 'undefined' && 'PublicKeyCredential' in window
}

/**
 * Makes a passkey for a link's or an invitation's redeem: the options from `optionsPath` (bound to
 * the code), then the browser's prompt; answers what the redeem posts as `passkey`.
 */
async function makePasskey(optionsPath: string, body: Record<string, string | undefined>) {
  const { startRegistration } = await import('@simplewebauthn/browser')
  const optionsJSON = await call<Parameters<typeof startRegistration>[0]['optionsJSON']>(optionsPath, {
    method: 'POST',
    body: JSON.stringify(body),
  })
  return { response: await startRegistration({ optionsJSON }), name: defaultPasskeyName() }
}

/** What a passkey made at sign-up is called on the person's list: this device, as the browser says. */
function defaultPasskeyName(): string {
  const ua = navigator.userAgent
  return /iPhone|iPad|Android/.test(ua) ? 'Phone' : 'This computer'
}

/** Makes a passkey in place of a password with a setup or reset link's code, and signs in. */
export async function redeemSignInLinkWithPasskey(
  code: string,
  email: string | undefined,
  deviceName: string,
): Promise<void> {
  const passkey = await makePasskey('/sign-in-links/passkey/options', { code, email })
  await call('/sign-in-links/redeem', {
    method: 'POST',
    body: JSON.stringify({ code, passkey, ...(email && { email }), deviceName }),
  })
}

/** Ends this browser's session on the server and clears its cookie; offline, the cookie stays until it expires. */
export async function signOutOfServer(): Promise<void> {
  await call('/sessions/current', { method: 'DELETE' }).catch(() => {})
}

/** The households the signed-in person belongs to. */
export async function listHouseholds(): Promise<MyHousehold[]> {
  const { items } = await call<{ items: MyHousehold[] }>('/households', { method: 'GET' })
  return items
}

/**
 * Redeems an invitation code as a new person with an email and a password, signed in at once;
 * answers the household joined.
 */
export async function redeemInvitation(
  code: string,
  name: string,
  email: string,
  password: string,
  deviceName: string,
): Promise<MyHousehold> {
  const result = await call<{ household: MyHousehold }>('/invitations/redeem', {
    method: 'POST',
    body: JSON.stringify({ code, name, email, password, deviceName }),
  })
  return result.household
}

/**
 * Redeems an invitation code as a new person with an email and a passkey (made now, in place of a
 * password), signed in at once; answers the household joined.
 */
export async function redeemInvitationWithPasskey(
  code: string,
  name: string,
  email: string,
  deviceName: string,
): Promise<MyHousehold> {
  const passkey = await makePasskey('/invitations/passkey/options', { code, email, name })
  const result = await call<{ household: MyHousehold }>('/invitations/redeem', {
    method: 'POST',
    body: JSON.stringify({ code, name, email, passkey, deviceName }),
  })
  return result.household
}

/** A new store name for a sign-in, so two people signing in on one browser never share a replica. */
export function newStoreName(householdId: string): string {
  const random = crypto.getRandomValues(new Uint8Array(6))
  return `idb://hearth-${householdId}-${[...random].map((b) => b.toString(16).padStart(2, '0')).join('')}`
}
