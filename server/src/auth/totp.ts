import { createHash, randomBytes } from 'node:crypto'
import { RECOVERY_CODE_COUNT } from '@hearth/engine'
import { Secret, TOTP } from 'otpauth'

/** RFC 6238 as every authenticator app reads it: SHA-1, 6 digits, 30-second steps. */
const TOTP_SETTINGS = { algorithm: 'SHA1', digits: 6, period: 30 } as const

/** A code is accepted for its own step and the one before or after it (clocks drift). */
export const TOTP_WINDOW = 1

/** A new TOTP secret (160 bits, as RFC 4226 recommends), its base32 text and its `otpauth://` URI. */
export function mintTotpSecret(account: string): { secret: string; uri: string } {
  const secret = new Secret({ size: 20 })
  const totp = new TOTP({ ...TOTP_SETTINGS, issuer: 'Hearth', label: account, secret })
  return { secret: secret.base32, uri: totp.toString() }
}

/**
 * The step a code is valid for (its own, or one either side), or null when it is valid for none.
 * The caller still takes the step once, so a code works once.
 */
export function totpStepOf(secret: string, code: string, now: number = Date.now()): number | null {
  const token = code.replace(/\s+/g, '')
  if (!/^\d{6}$/.test(token)) return null
  const delta = TOTP.validate({
    ...TOTP_SETTINGS,
    secret: Secret.fromBase32(secret),
    token,
    timestamp: now,
    window: TOTP_WINDOW,
  })
  return delta === null ? null : TOTP.counter({ period: TOTP_SETTINGS.period, timestamp: now }) + delta
}

/** The code an authenticator shows for `secret` at `timestamp` (tests, and the CLI's checks). */
export function totpCodeAt(secret: string, timestamp: number): string {
  return TOTP.generate({ ...TOTP_SETTINGS, secret: Secret.fromBase32(secret), timestamp })
}

const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789'

/** A recovery code as typed: case, spaces and dashes do not matter. */
function normalRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]+/g, '')
}

/** The stored form of a recovery code: the SHA-256 of its normal form (each holds 50 random bits). */
export function hashRecoveryCode(code: string): string {
  return createHash('sha256').update(normalRecoveryCode(code)).digest('hex')
}

/** Ten new recovery codes (`xxxxx-xxxxx`, 10 characters of a 31-letter alphabet) and their hashes. */
export function mintRecoveryCodes(): { codes: string[]; hashes: string[] } {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const bytes = randomBytes(10)
    const chars = [...bytes].map((b) => RECOVERY_ALPHABET[b % RECOVERY_ALPHABET.length]).join('')
    return `${chars.slice(0, 5)}-${chars.slice(5)}`
  })
  return { codes, hashes: codes.map(hashRecoveryCode) }
}
