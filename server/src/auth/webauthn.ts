import { EngineError, newUlid, type Store, takeChallenge } from '@hearth/engine'
import type {
  PublicKeyCredentialCreationOptionsJSON,
  RegistrationResponseJSON,
  VerifiedRegistrationResponse,
} from '@simplewebauthn/server'
import type { Context } from 'hono'
import type { SessionSettings } from './session-settings.ts'

/**
 * @simplewebauthn/server, loaded at the first passkey ceremony rather than at start: importing it
 * (and its ASN.1 and COSE parsers) took 0.3–0.45 s of every server's start, passkeys or not.
 */
export const webauthnLibrary = () => import('@simplewebauthn/server')

/** Bytes as base64url without padding, as WebAuthn writes credential IDs, keys and client data. */
export const toBase64Url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url')

/** The bytes of a base64url text. */
export const fromBase64Url = (text: string): Uint8Array<ArrayBuffer> =>
  new Uint8Array(Buffer.from(text, 'base64url'))

/** How long a WebAuthn challenge can be answered: 5 minutes, once. */
export const CHALLENGE_MS = 5 * 60_000

/**
 * The relying party passkeys are bound to: the origin people reach this server at
 * (`HEARTH_PUBLIC_URL`), else the origin of the request; its host name is the RP ID. A passkey made
 * at one origin works only there, so set `HEARTH_PUBLIC_URL` behind a proxy.
 */
export function relyingParty(c: Context, settings: SessionSettings): { origin: string; rpID: string } {
  const origin = settings.publicUrl ?? new URL(c.req.url).origin
  return { origin, rpID: new URL(origin).hostname }
}

/** The options of a new passkey for `userId`, as `navigator.credentials.create()` takes them. */
export async function passkeyRegistrationOptions(
  c: Context,
  settings: SessionSettings,
  user: { id: string; name: string; displayName: string },
  exclude: { id: string; transports: string[] }[] = [],
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const { generateRegistrationOptions } = await webauthnLibrary()
  return generateRegistrationOptions({
    rpName: 'Hearth',
    rpID: relyingParty(c, settings).rpID,
    userName: user.name,
    userDisplayName: user.displayName,
    userID: new TextEncoder().encode(user.id),
    attestationType: 'none',
    excludeCredentials: exclude,
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    timeout: CHALLENGE_MS,
  })
}

/** An answer that does not verify: 400 when adding a passkey, 401 when signing in with one. */
export const refusedPasskey = (status: 400 | 401, error: unknown) =>
  new EngineError(
    status,
    'PASSKEY_REFUSED',
    `The passkey’s answer does not verify: ${error instanceof Error ? error.message : 'unreadable'}`,
  )

/**
 * Verifies a registration answer made for `challenge` at this server's origin and RP ID (400
 * `PASSKEY_REFUSED` otherwise), and answers what is kept of the new passkey, named `name`.
 */
export async function verifiedPasskey(
  c: Context,
  settings: SessionSettings,
  response: Record<string, unknown>,
  challenge: string,
  name: string,
) {
  const { origin, rpID } = relyingParty(c, settings)
  const { verifyRegistrationResponse } = await webauthnLibrary()
  let verified: VerifiedRegistrationResponse
  try {
    verified = await verifyRegistrationResponse({
      response: response as unknown as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: false,
    })
  } catch (error) {
    throw refusedPasskey(400, error)
  }
  if (!verified.verified || !verified.registrationInfo) throw refusedPasskey(400, new Error('not verified'))
  const { credential } = verified.registrationInfo
  return {
    id: newUlid(),
    name,
    credentialId: credential.id,
    publicKey: toBase64Url(credential.publicKey),
    counter: credential.counter,
    transports: credential.transports ?? [],
  }
}

/**
 * The challenge inside a browser's answer (its `clientDataJSON`), read, not taken: 400
 * `WEBAUTHN_RESPONSE_INVALID` when the answer has none.
 */
export function answeredChallenge(response: Record<string, unknown>): string {
  const inner = response.response as { clientDataJSON?: unknown } | undefined
  let challenge: unknown
  try {
    challenge = JSON.parse(
      Buffer.from(String(inner?.clientDataJSON ?? ''), 'base64url').toString('utf8'),
    ).challenge
  } catch {
    challenge = undefined
  }
  if (typeof challenge !== 'string' || challenge.length === 0 || challenge.length > 200) {
    throw new EngineError(
      400,
      'WEBAUTHN_RESPONSE_INVALID',
      'The passkey’s answer is not a WebAuthn response.',
      {
        errors: [{ path: 'response', message: 'Has no readable clientDataJSON.', code: 'invalid' }],
      },
    )
  }
  return challenge
}

/**
 * Takes the challenge a browser's answer was made for, once: the challenge inside its
 * `clientDataJSON` must be one this server handed out for `purpose` (and, for a registration, to
 * this user), not used yet and not older than 5 minutes. A second answer to it (a replay) is
 * refused, 400 `WEBAUTHN_CHALLENGE_INVALID`.
 */
export async function takeAnsweredChallenge(
  store: Store,
  response: Record<string, unknown>,
  purpose: 'register' | 'sign_in',
  userId: string | null,
): Promise<string> {
  const challenge = answeredChallenge(response)
  if (!(await takeChallenge(store.db, challenge, purpose, userId, new Date()))) {
    throw new EngineError(
      400,
      'WEBAUTHN_CHALLENGE_INVALID',
      'This passkey answer is for a challenge that is unknown, used already or older than 5 minutes; try again.',
    )
  }
  return challenge
}

/**
 * A passkey made for the options of a link's or an invitation's redeem: verified against the
 * challenge its answer names, which the redeem then takes in its own transaction (so a refused
 * answer changes nothing, and leaves the link or the invitation unused).
 */
export async function redeemedPasskey(
  c: Context,
  settings: SessionSettings,
  passkey: { response: Record<string, unknown>; name?: string },
) {
  const challenge = answeredChallenge(passkey.response)
  const verified = await verifiedPasskey(c, settings, passkey.response, challenge, passkey.name ?? 'Passkey')
  return { ...verified, challenge }
}

/** What a redeem keeps of its passkey, with the challenge it takes. */
export type RedeemedPasskey = Awaited<ReturnType<typeof redeemedPasskey>>
