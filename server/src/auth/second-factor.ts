import {
  EngineError,
  passwordHashOf,
  type Store,
  takeRecoveryCode,
  takeTotpStep,
  totpFactorOf,
} from '@hearth/engine'
import type { SecretBox } from '../webhooks/secret-box.ts'
import { verifyPassword } from './password-hash.ts'
import { hashRecoveryCode, totpStepOf } from './totp.ts'

/** What a person offers as a second factor (at sign-in) or as proof (to change a factor). */
export interface FactorProof {
  password?: string
  totpCode?: string
  recoveryCode?: string
}

const refused = (code: string, detail: string, path: string) =>
  new EngineError(401, code, detail, { errors: [{ path, message: detail, code: code.toLowerCase() }] })

/**
 * Whether `userId` must give a second factor at sign-in: the secret of their confirmed
 * authenticator app, opened, or null when none is asked for. A secret no configured key opens is
 * a 503 naming why, never a sign-in without it.
 */
export async function totpSecretOf(store: Store, box: SecretBox, userId: string): Promise<string | null> {
  const factor = await totpFactorOf(store.db, userId)
  if (!factor?.confirmed) return null
  try {
    return box.open(factor.secretSealed)
  } catch {
    throw new EngineError(
      503,
      'SECOND_FACTOR_UNAVAILABLE',
      'Your authenticator app’s secret cannot be opened with this server’s key (HEARTH_WEBHOOK_SECRET_KEY changed); sign in with a passkey, or ask the operator.',
    )
  }
}

/**
 * Checks a TOTP code or a recovery code for `userId`, using it up: a code's step is taken once
 * (a code used before, or an earlier one, is refused), a recovery code is marked used. Throws a
 * 401 naming why: `TOTP_CODE_INVALID` (wrong, or outside ±1 step of 30 s), `TOTP_CODE_USED`,
 * `RECOVERY_CODE_INVALID`, `RECOVERY_CODE_USED`.
 */
export async function useSecondFactor(
  store: Store,
  secret: string,
  userId: string,
  proof: FactorProof,
  totpPath = 'totpCode',
): Promise<void> {
  if (proof.totpCode !== undefined) {
    const step = totpStepOf(secret, proof.totpCode)
    if (step === null) {
      throw refused(
        'TOTP_CODE_INVALID',
        'The code is wrong or too old: enter the 6 digits your authenticator app shows now.',
        totpPath,
      )
    }
    if (!(await takeTotpStep(store.db, userId, step))) {
      throw refused(
        'TOTP_CODE_USED',
        'This code was used already: wait for the next one your authenticator app shows.',
        totpPath,
      )
    }
    return
  }
  if (proof.recoveryCode !== undefined) {
    const taken = await takeRecoveryCode(store.db, userId, hashRecoveryCode(proof.recoveryCode), new Date())
    if (taken === 'used') {
      throw refused(
        'RECOVERY_CODE_USED',
        'This recovery code was used already; each works once.',
        'recoveryCode',
      )
    }
    if (taken === 'unknown') {
      throw refused('RECOVERY_CODE_INVALID', 'This is not one of your recovery codes.', 'recoveryCode')
    }
    return
  }
  throw new EngineError(
    401,
    'SECOND_FACTOR_REQUIRED',
    'Enter the code your authenticator app shows, or one of your recovery codes.',
    { extra: { factors: ['totp', 'recoveryCode'] } },
  )
}

/**
 * Proves it is the person before a factor changes: their password, a code of their authenticator
 * app, or a recovery code (each code used up). Throws a 401 naming why.
 */
export async function proveItIsYou(
  store: Store,
  box: SecretBox,
  userId: string,
  proof: FactorProof,
): Promise<void> {
  if (proof.password !== undefined) {
    const hash = await passwordHashOf(store.db, userId)
    if (!hash || !(await verifyPassword(proof.password, hash))) {
      throw refused('UNAUTHENTICATED', 'The password is wrong.', 'password')
    }
    return
  }
  const secret = await totpSecretOf(store, box, userId)
  if (secret === null) {
    throw refused('UNAUTHENTICATED', 'You have no authenticator app: give your password.', 'password')
  }
  await useSecondFactor(store, secret, userId, proof, 'code')
}

/**
 * Seals every authenticator app's secret again under the current key, at start (as webhook
 * secrets and bank access are), so `HEARTH_WEBHOOK_SECRET_KEY_PREVIOUS` can be removed after a
 * rotation; a secret neither key opens is left as it is. Answers how many changed.
 */
export async function resealTotpSecrets(store: Store, box: SecretBox): Promise<number> {
  if (!box.encrypted) return 0
  const rows = await store.db.selectFrom('totp_factors').select(['user_id', 'secret_sealed']).execute()
  let changed = 0
  for (const row of rows) {
    if (box.sealedNow(row.secret_sealed)) continue
    let sealed: string
    try {
      sealed = box.seal(box.open(row.secret_sealed))
    } catch {
      continue
    }
    await store.db
      .updateTable('totp_factors')
      .set({ secret_sealed: sealed })
      .where('user_id', '=', row.user_id)
      .where('secret_sealed', '=', row.secret_sealed)
      .execute()
    changed++
  }
  return changed
}
