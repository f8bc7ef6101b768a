import { EngineError, findSignInUser, type NotificationChannel, type Store } from '@hearth/engine'
import type { Context } from 'hono'
import { problem } from '../http/problem.ts'
import { type AuthFailures, failureSource } from '../http/rate-limits.ts'
import { positiveIntegersFromEnv } from '../sync/socket-limits.ts'
import type { SecretBox } from '../webhooks/secret-box.ts'
import { type FailedPasswordAlerts, notifyFailedPasswords } from './failed-password-alerts.ts'
import type { FailureBackoff } from './failure-backoff.ts'
import { HashGate } from './hash-gate.ts'
import { decoyHash, verifyPassword } from './password-hash.ts'
import { totpSecretOf, useSecondFactor } from './second-factor.ts'

/** What checking an email and password needs: the store, the limits on wrong guesses, and the second factor's keys. */
export interface PasswordCheck {
  store: Store
  authFailures: AuthFailures
  /** Wrong passwords per account (sign-in-throttle.ts), shared by every way of signing in. */
  byAccount: FailureBackoff
  /** People sign in with the OpenID Connect provider only (`HEARTH_OIDC_REQUIRED=on`). */
  oidcRequired?: boolean
  /** Opens the sealed secrets of authenticator apps (as webhook secrets are sealed). */
  box: SecretBox
  /** Tells a person of wrong passwords tried for their account. */
  failedPasswordAlerts: FailedPasswordAlerts
  /** The channels notifications go out on. */
  notificationChannels: readonly NotificationChannel[]
  /** The password hashes an address and an account may have under way (passwordHashGates). */
  hashGates: PasswordHashGates
}

/** The bounds on password hashing: per client address, and per account (the email asked for). */
export interface PasswordHashGates {
  byAddress: HashGate
  byAccount: HashGate
}

/** How many password checks may compute or wait at once (docs/security.md, "Wrong passwords"). */
export interface PasswordCheckLimits {
  /** Checks of one client address computing at once. */
  perAddress: number
  /** Checks of one client address waiting for a turn; one more is answered 429 unchecked. */
  waitingPerAddress: number
  /** Checks of one account (the email asked for) computing at once; any number wait, none refused. */
  perAccount: number
}

/**
 * The defaults: one check computing per client address with 8 more waiting in turn (a ninth
 * waiting one is answered 429 unchecked), and two per account with any number waiting (an
 * account's right password is never refused, only queued behind the checks already under way).
 */
export const DEFAULT_PASSWORD_CHECK_LIMITS: PasswordCheckLimits = {
  perAddress: 1,
  waitingPerAddress: 8,
  perAccount: 2,
}

const VARIABLES: Record<keyof PasswordCheckLimits, string> = {
  perAddress: 'HEARTH_PASSWORD_CHECKS_PER_ADDRESS',
  waitingPerAddress: 'HEARTH_PASSWORD_CHECKS_WAITING_PER_ADDRESS',
  perAccount: 'HEARTH_PASSWORD_CHECKS_PER_ACCOUNT',
}

/** Reads the limits from the environment; a bad value stops start-up naming the variable. */
export function passwordCheckLimitsFromEnv(env: NodeJS.ProcessEnv): PasswordCheckLimits {
  return positiveIntegersFromEnv(DEFAULT_PASSWORD_CHECK_LIMITS, VARIABLES, env)
}

/** The gates that hold password checks to `limits`. */
export function passwordHashGates(limits = DEFAULT_PASSWORD_CHECK_LIMITS): PasswordHashGates {
  return {
    byAddress: new HashGate({ inFlight: limits.perAddress, waiting: limits.waitingPerAddress }),
    byAccount: new HashGate({ inFlight: limits.perAccount, waiting: Number.POSITIVE_INFINITY }),
  }
}

/** An email and password, with the code of an authenticator app (or a recovery code) when the person has one. */
export interface PasswordCredentials {
  email: string
  password: string
  totpCode?: string
  recoveryCode?: string
}

/**
 * Checks an email and password, and the person's second factor when they have one: the user they
 * sign in, or a 401 naming why (`SECOND_FACTOR_REQUIRED` asks for the code), or a 429 answer while
 * the account or the address is backing off. The right credentials are never refused for others'
 * failures. Wrong passwords for a person's account are told to them (failed-password-alerts.ts).
 * Every way of signing in with a password (a session, a device) goes through here.
 */
export async function checkPassword(
  c: Context,
  check: PasswordCheck,
  credentials: PasswordCredentials,
): Promise<{ userId: string } | Response> {
  const { store, authFailures, byAccount, oidcRequired, box } = check
  if (oidcRequired) {
    throw new EngineError(
      403,
      'OIDC_REQUIRED',
      'This server signs people in with its OpenID Connect provider only; use “Sign in with” it.',
    )
  }
  const address = c.get('clientAddress' as never) as string
  const heldBack = async (refusal: EngineError): Promise<Response> => {
    const wait = Math.max(
      byAccount.failed(credentials.email.toLowerCase()),
      (authFailures.failed(address, undefined) ?? 0) * 1000,
    )
    if (wait > 0) {
      await authFailures.hold()
      return problem(c, 429, 'RATE_LIMITED', {
        detail: 'Too many failed sign-ins; wait and try again.',
        headers: { 'retry-after': String(Math.max(1, Math.ceil(wait / 1000))) },
      })
    }
    throw refusal
  }
  // One address's checks take turns (a flood's excess is refused unchecked), then one account's.
  const addressTurn = check.hashGates.byAddress.enter(failureSource(address))
  if (!addressTurn) {
    const wait = Math.max(1, authFailures.failed(address, undefined) ?? 0)
    c.get('logger' as never)?.warn({ address }, 'password check refused: too many from this address at once')
    await authFailures.hold()
    return problem(c, 429, 'RATE_LIMITED', {
      detail: 'Too many password sign-ins from your address at once; wait and try again.',
      headers: { 'retry-after': String(wait) },
    })
  }
  const endAddressTurn = await addressTurn
  let user: Awaited<ReturnType<typeof findSignInUser>>
  let matches: boolean
  try {
    const endAccountTurn = await check.hashGates.byAccount.enter(credentials.email.toLowerCase())!
    try {
      user = await findSignInUser(store.db, credentials.email)
      // An unknown email or a user without a password costs one hash too, so timing tells nothing.
      matches = await verifyPassword(credentials.password, user?.hash ?? (await decoyHash()))
    } finally {
      endAccountTurn()
    }
  } finally {
    endAddressTurn()
  }
  if (!user?.hash || !matches) {
    if (user) {
      const alert = check.failedPasswordAlerts.failed(user.userId, address)
      if (alert) {
        await notifyFailedPasswords(store, user.userId, alert, check.notificationChannels).catch((err) =>
          c.get('logger' as never)?.error({ err }, 'failed-password notification not written'),
        )
      }
    }
    return heldBack(new EngineError(401, 'UNAUTHENTICATED', 'The email and password do not match.'))
  }
  // The password is right: an authenticator app, when the person has one, is asked for too.
  const secret = await totpSecretOf(store, box, user.userId)
  if (secret !== null) {
    try {
      await useSecondFactor(store, secret, user.userId, credentials)
    } catch (error) {
      if (!(error instanceof EngineError) || error.code === 'SECOND_FACTOR_REQUIRED') throw error
      return heldBack(error)
    }
  }
  return { userId: user.userId }
}
