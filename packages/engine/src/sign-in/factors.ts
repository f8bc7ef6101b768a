import type { Kysely, Transaction } from 'kysely'
import { z } from 'zod'
import type { Database } from '../database.ts'
import { conflict, EngineError, notFound } from '../errors.ts'
import type { ActorContext } from '../mutator/context.ts'
import { defineUserMutator, defineUserQuery } from '../mutator/define.ts'
import { NameSchema } from '../shared/schema.ts'
import { newUlid } from '../shared/ulid.ts'
import {
  CreateSessionArgsSchema,
  NewPasskeyArgsSchema,
  type RedeemPasskeyArgsSchema,
  SecretHashSchema,
} from './schema.ts'
import { insertSession, revokeSessions, type Session } from './sessions.ts'

/** How many recovery codes a confirmed TOTP factor has; each works once. */
export const RECOVERY_CODE_COUNT = 10

const KeepSessionSchema = z
  .string()
  .max(64)
  .nullish()
  .describe('The caller’s own session, which stays signed in; every other session of the user ends.')

const RecoveryHashesSchema = z.array(SecretHashSchema).length(RECOVERY_CODE_COUNT)

/** A TOTP factor as its person sees it; never the secret. */
export interface TotpStatus {
  enrolled: boolean
  confirmedAt: string | null
  recoveryCodesLeft: number
}

/** A passkey as its person sees it; never the key. */
export interface Passkey {
  id: string
  name: string
  createdAt: string
  lastUsedAt: string | null
}

type PasskeyRow = { id: string; name: string; created_at: Date; last_used_at: Date | null }
const toPasskey = (row: PasskeyRow): Passkey => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at.toISOString(),
  lastUsedAt: row.last_used_at?.toISOString() ?? null,
})

async function replaceRecoveryCodes(tx: Transaction<Database>, hashes: string[], ctx: ActorContext) {
  await tx.deleteFrom('recovery_codes').where('user_id', '=', ctx.userId).execute()
  await tx
    .insertInto('recovery_codes')
    .values(
      hashes.map((hash) => ({
        id: newUlid(),
        user_id: ctx.userId,
        code_hash: hash,
        created_at: ctx.now,
        used_at: null,
      })),
    )
    .execute()
}

/** The caller's TOTP factor, confirmed or not, and how many recovery codes are left. */
export async function totpStatusOf(db: Kysely<Database>, userId: string): Promise<TotpStatus> {
  const factor = await db
    .selectFrom('totp_factors')
    .select('confirmed_at')
    .where('user_id', '=', userId)
    .executeTakeFirst()
  const left = await db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow()
  const confirmedAt = factor?.confirmed_at ?? null
  return {
    enrolled: confirmedAt !== null,
    confirmedAt: confirmedAt?.toISOString() ?? null,
    recoveryCodesLeft: confirmedAt ? Number(left.n) : 0,
  }
}

/** The sealed secret of a user's TOTP factor and whether it is confirmed, or null when they have none. */
export async function totpFactorOf(
  db: Kysely<Database>,
  userId: string,
): Promise<{ secretSealed: string; confirmed: boolean; lastStep: number | null } | null> {
  const row = await db
    .selectFrom('totp_factors')
    .select(['secret_sealed', 'confirmed_at', 'last_step'])
    .where('user_id', '=', userId)
    .executeTakeFirst()
  if (!row) return null
  return {
    secretSealed: row.secret_sealed,
    confirmed: row.confirmed_at !== null,
    lastStep: row.last_step === null ? null : Number(row.last_step),
  }
}

/**
 * Takes a TOTP step for a confirmed factor: true when it is later than the last one used (so the
 * code is used now), false when that step or a later one was used already. One statement: two
 * sign-ins racing with one code cannot both win.
 */
export async function takeTotpStep(db: Kysely<Database>, userId: string, step: number): Promise<boolean> {
  const result = await db
    .updateTable('totp_factors')
    .set({ last_step: step })
    .where('user_id', '=', userId)
    .where('confirmed_at', 'is not', null)
    .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Uses a recovery code by its hash: `used` when it was used before, `unknown` when it is none of the user's. */
export async function takeRecoveryCode(
  db: Kysely<Database>,
  userId: string,
  codeHash: string,
  now: Date,
): Promise<'taken' | 'used' | 'unknown'> {
  const result = await db
    .updateTable('recovery_codes')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst()
  if (Number(result.numUpdatedRows) === 1) return 'taken'
  const row = await db
    .selectFrom('recovery_codes')
    .select('id')
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .executeTakeFirst()
  return row ? 'used' : 'unknown'
}

/** Whether the caller has an authenticator app on, and how many recovery codes are left. */
export const getTotp = defineUserQuery({
  audience: 'server',
  description:
    'Whether sign-in asks you for an authenticator app’s code, and how many recovery codes are left.',
  scope: 'read:profile',
  args: z.strictObject({}),
  run: (db, _args, ctx) => totpStatusOf(db, ctx.userId),
})

/** Starts a TOTP enrolment: a new secret, not yet counted, in place of an unconfirmed one. */
export const beginTotp = defineUserMutator({
  audience: 'server',
  description: 'Starts adding an authenticator app: a new secret, active once a first code confirms it.',
  scope: 'write:profile',
  args: z.strictObject({ secretSealed: z.string().min(1).max(1000) }),
  async run(tx, args, ctx) {
    const existing = await tx
      .selectFrom('totp_factors')
      .select('confirmed_at')
      .where('user_id', '=', ctx.userId)
      .executeTakeFirst()
    if (existing?.confirmed_at) {
      throw conflict(
        'TOTP_ALREADY_ENROLLED',
        'You have an authenticator app already; remove it before adding another.',
      )
    }
    await tx
      .insertInto('totp_factors')
      .values({
        user_id: ctx.userId,
        secret_sealed: args.secretSealed,
        created_at: ctx.now,
        confirmed_at: null,
        last_step: null,
      })
      .onConflict((oc) =>
        oc.column('user_id').doUpdateSet({ secret_sealed: args.secretSealed, created_at: ctx.now }),
      )
      .execute()
    return { started: true }
  },
})

/**
 * Confirms the caller's pending TOTP factor (the server checked the first code, of `step`): it
 * counts from now on, with ten fresh recovery codes, and every other session of the user ends.
 */
export const confirmTotp = defineUserMutator({
  audience: 'server',
  description: 'Turns on your authenticator app after its first code; every other session of yours ends.',
  scope: 'write:profile',
  args: z.strictObject({
    step: z.int().nonnegative(),
    recoveryCodeHashes: RecoveryHashesSchema,
    keepSessionId: KeepSessionSchema,
  }),
  async run(tx, args, ctx) {
    const result = await tx
      .updateTable('totp_factors')
      .set({ confirmed_at: ctx.now, last_step: args.step })
      .where('user_id', '=', ctx.userId)
      .where('confirmed_at', 'is', null)
      .executeTakeFirst()
    if (Number(result.numUpdatedRows) !== 1) {
      throw conflict('TOTP_NOT_PENDING', 'No authenticator app is waiting to be confirmed; start again.')
    }
    await replaceRecoveryCodes(tx, args.recoveryCodeHashes, ctx)
    const ended = await revokeSessions(tx, ctx, { except: args.keepSessionId ?? null })
    return { sessionsEnded: ended }
  },
})

/** Removes the caller's TOTP factor and its recovery codes; every other session of the user ends. */
export const removeTotp = defineUserMutator({
  audience: 'server',
  description: 'Removes your authenticator app and its recovery codes; every other session of yours ends.',
  scope: 'write:profile',
  args: z.strictObject({ keepSessionId: KeepSessionSchema }),
  async run(tx, args, ctx) {
    const removed = await tx.deleteFrom('totp_factors').where('user_id', '=', ctx.userId).executeTakeFirst()
    if (Number(removed.numDeletedRows) === 0) throw notFound('TotpFactor')
    await tx.deleteFrom('recovery_codes').where('user_id', '=', ctx.userId).execute()
    const ended = await revokeSessions(tx, ctx, { except: args.keepSessionId ?? null })
    return { sessionsEnded: ended }
  },
})

/** Replaces the caller's recovery codes with ten new ones; the old ones stop working. */
export const regenerateRecoveryCodes = defineUserMutator({
  audience: 'server',
  description:
    'Replaces your recovery codes; the old ones stop working and every other session of yours ends.',
  scope: 'write:profile',
  args: z.strictObject({ recoveryCodeHashes: RecoveryHashesSchema, keepSessionId: KeepSessionSchema }),
  async run(tx, args, ctx) {
    const factor = await tx
      .selectFrom('totp_factors')
      .select('confirmed_at')
      .where('user_id', '=', ctx.userId)
      .executeTakeFirst()
    if (!factor?.confirmed_at) throw notFound('TotpFactor')
    await replaceRecoveryCodes(tx, args.recoveryCodeHashes, ctx)
    const ended = await revokeSessions(tx, ctx, { except: args.keepSessionId ?? null })
    return { sessionsEnded: ended }
  },
})

/** The caller's passkeys, oldest first. */
export const listPasskeys = defineUserQuery({
  audience: 'server',
  description: 'Your passkeys, oldest first.',
  scope: 'read:profile',
  args: z.strictObject({}),
  async run(db, _args, ctx): Promise<Passkey[]> {
    const rows = await db
      .selectFrom('passkeys')
      .select(['id', 'name', 'created_at', 'last_used_at'])
      .where('user_id', '=', ctx.userId)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
    return rows.map(toPasskey)
  },
})

/** Keeps the challenge of a passkey the caller is about to add: theirs alone, once, until `expiresAt`. */
export const beginPasskeyRegistration = defineUserMutator({
  audience: 'server',
  description: 'Starts adding a passkey: a challenge for your browser, usable once for 5 minutes.',
  scope: 'write:profile',
  args: z.strictObject({
    challenge: z.string().min(16).max(200),
    expiresAt: z.iso.datetime({ offset: true }),
  }),
  async run(tx, args, ctx) {
    await insertChallenge(tx, {
      challenge: args.challenge,
      purpose: 'register',
      userId: ctx.userId,
      expiresAt: new Date(args.expiresAt),
      now: ctx.now,
    })
    return { expiresAt: args.expiresAt }
  },
})

/**
 * Signs the passkey's person in: the counter moves from the value the server verified the answer
 * against to the new one, and the session is made, in one transaction. A counter that moved in the
 * meantime (the same answer used twice, or a cloned key) refuses it, 401 `PASSKEY_REFUSED`.
 */
export const createSessionWithPasskey = defineUserMutator({
  audience: 'server',
  description: 'Signs in with a passkey the server verified: a session with the rights of your roles.',
  scope: null,
  args: z.strictObject({
    passkeyId: z.string().min(1).max(64),
    fromCounter: z.int().nonnegative(),
    toCounter: z.int().nonnegative(),
    session: CreateSessionArgsSchema,
  }),
  async run(tx, args, ctx): Promise<Session> {
    const moved = await tx
      .updateTable('passkeys')
      .set({ counter: args.toCounter, last_used_at: ctx.now })
      .where('id', '=', args.passkeyId)
      .where('user_id', '=', ctx.userId)
      .where('counter', '=', args.fromCounter)
      .executeTakeFirst()
    if (Number(moved.numUpdatedRows) !== 1) {
      throw new EngineError(
        401,
        'PASSKEY_REFUSED',
        'The passkey’s answer does not verify: its signature counter was used already by another sign-in.',
      )
    }
    return insertSession(tx, args.session, ctx)
  },
})

/** Adds a passkey the server verified (its registration answered the challenge it handed out). */
export const addPasskey = defineUserMutator({
  audience: 'server',
  description: 'Adds a passkey to sign in with.',
  scope: 'write:profile',
  args: NewPasskeyArgsSchema,
  run: (tx, args, ctx): Promise<Passkey> => insertPasskey(tx, args, ctx),
})

/** Stores a verified passkey for the acting user; one already stored (by anyone) is 409. */
export async function insertPasskey(
  tx: Transaction<Database>,
  passkey: z.output<typeof NewPasskeyArgsSchema>,
  ctx: ActorContext,
): Promise<Passkey> {
  const taken = await tx
    .selectFrom('passkeys')
    .select('id')
    .where('credential_id', '=', passkey.credentialId)
    .executeTakeFirst()
  if (taken) throw conflict('PASSKEY_ALREADY_ADDED', 'This passkey is added already.')
  const row = await tx
    .insertInto('passkeys')
    .values({
      id: passkey.id,
      user_id: ctx.userId,
      credential_id: passkey.credentialId,
      public_key: passkey.publicKey,
      counter: passkey.counter,
      transports: passkey.transports.join(','),
      name: passkey.name,
      created_at: ctx.now,
      last_used_at: null,
    })
    .returning(['id', 'name', 'created_at', 'last_used_at'])
    .executeTakeFirstOrThrow()
  return toPasskey(row)
}

/**
 * Stores the passkey made at a link's or an invitation's redeem, for the acting user: its
 * challenge must be one handed out for this code and this user, unused and unexpired, and is taken
 * here, in the redeem's transaction (400 `WEBAUTHN_CHALLENGE_INVALID` otherwise, nothing changed).
 */
export async function insertRedeemedPasskey(
  tx: Transaction<Database>,
  codeHash: string,
  passkey: z.output<typeof RedeemPasskeyArgsSchema>,
  ctx: ActorContext,
): Promise<Passkey> {
  const taken = await tx
    .deleteFrom('webauthn_challenges')
    .where('challenge', '=', passkey.challenge)
    .where('purpose', '=', 'redeem')
    .where('code_hash', '=', codeHash)
    .where('expires_at', '>', ctx.now)
    .where((eb) => eb.or([eb('user_id', '=', ctx.userId), eb('new_user_id', '=', ctx.userId)]))
    .executeTakeFirst()
  if (Number(taken.numDeletedRows) !== 1) {
    throw new EngineError(
      400,
      'WEBAUTHN_CHALLENGE_INVALID',
      'This passkey answer is for a challenge that is unknown, used already or older than 5 minutes; try again.',
    )
  }
  const { challenge: _, ...kept } = passkey
  return insertPasskey(tx, kept, ctx)
}

/**
 * The user a redeem's challenge was handed out for (the link's user, or the id chosen ahead for an
 * invitation's new person), while it is unused and unexpired; null otherwise. It is taken later,
 * in the redeem's transaction.
 */
export async function redeemChallengeUser(
  db: Kysely<Database>,
  challenge: string,
  codeHash: string,
  now: Date,
): Promise<string | null> {
  const row = await db
    .selectFrom('webauthn_challenges')
    .select(['user_id', 'new_user_id'])
    .where('challenge', '=', challenge)
    .where('purpose', '=', 'redeem')
    .where('code_hash', '=', codeHash)
    .where('expires_at', '>', now)
    .executeTakeFirst()
  return row ? (row.user_id ?? row.new_user_id) : null
}

/** Renames one of the caller's passkeys. */
export const renamePasskey = defineUserMutator({
  audience: 'server',
  description: 'Renames one of your passkeys.',
  scope: 'write:profile',
  args: z.strictObject({ id: z.string().min(1).max(64), name: NameSchema }),
  async run(tx, args, ctx): Promise<Passkey> {
    const row = await tx
      .updateTable('passkeys')
      .set({ name: args.name })
      .where('user_id', '=', ctx.userId)
      .where('id', '=', args.id)
      .returning(['id', 'name', 'created_at', 'last_used_at'])
      .executeTakeFirst()
    if (!row) throw notFound('Passkey', args.id)
    return toPasskey(row)
  },
})

/** Removes one of the caller's passkeys; every other session of the user ends. */
export const removePasskey = defineUserMutator({
  audience: 'server',
  description: 'Removes one of your passkeys; every other session of yours ends.',
  scope: 'write:profile',
  args: z.strictObject({ id: z.string().min(1).max(64), keepSessionId: KeepSessionSchema }),
  async run(tx, args, ctx) {
    const removed = await tx
      .deleteFrom('passkeys')
      .where('user_id', '=', ctx.userId)
      .where('id', '=', args.id)
      .executeTakeFirst()
    if (Number(removed.numDeletedRows) === 0) throw notFound('Passkey', args.id)
    return { sessionsEnded: await revokeSessions(tx, ctx, { except: args.keepSessionId ?? null }) }
  },
})

/** A passkey found by its credential id for a sign-in, with what verifying needs. */
export async function passkeyByCredentialId(db: Kysely<Database>, credentialId: string) {
  const row = await db
    .selectFrom('passkeys')
    .select(['id', 'user_id', 'credential_id', 'public_key', 'counter', 'transports'])
    .where('credential_id', '=', credentialId)
    .executeTakeFirst()
  if (!row) return null
  return {
    id: row.id,
    userId: row.user_id,
    credentialId: row.credential_id,
    publicKey: row.public_key,
    counter: Number(row.counter),
    transports: row.transports ? row.transports.split(',') : [],
  }
}

/** The credential ids of a user's passkeys, so an authenticator does not register one twice. */
export async function passkeyCredentialIdsOf(db: Kysely<Database>, userId: string) {
  const rows = await db
    .selectFrom('passkeys')
    .select(['credential_id', 'transports'])
    .where('user_id', '=', userId)
    .execute()
  return rows.map((r) => ({ id: r.credential_id, transports: r.transports ? r.transports.split(',') : [] }))
}

/**
 * Keeps a WebAuthn challenge handed out, until `expiresAt`; expired ones are swept on the way. A
 * redeem's names the code it was handed out for, and the user: the link's (`userId`), or the id
 * chosen ahead for an invitation's new person (`newUserId`).
 */
export async function insertChallenge(
  db: Kysely<Database> | Transaction<Database>,
  challenge: {
    challenge: string
    purpose: 'register' | 'sign_in' | 'redeem'
    userId: string | null
    newUserId?: string
    codeHash?: string
    expiresAt: Date
    now: Date
  },
): Promise<void> {
  await db.deleteFrom('webauthn_challenges').where('expires_at', '<', challenge.now).execute()
  await db
    .insertInto('webauthn_challenges')
    .values({
      challenge: challenge.challenge,
      purpose: challenge.purpose,
      user_id: challenge.userId,
      expires_at: challenge.expiresAt,
      code_hash: challenge.codeHash ?? null,
      new_user_id: challenge.newUserId ?? null,
    })
    .execute()
}

/**
 * Takes a challenge once: deleted as it is read, so a second answer to it finds nothing. Null when
 * it is unknown, used, expired, of another purpose or, for a registration, of another user.
 */
export async function takeChallenge(
  db: Kysely<Database>,
  challenge: string,
  purpose: 'register' | 'sign_in',
  userId: string | null,
  now: Date,
): Promise<boolean> {
  let query = db
    .deleteFrom('webauthn_challenges')
    .where('challenge', '=', challenge)
    .where('purpose', '=', purpose)
    .where('expires_at', '>', now)
  query = userId === null ? query.where('user_id', 'is', null) : query.where('user_id', '=', userId)
  const result = await query.executeTakeFirst()
  return Number(result.numDeletedRows) === 1
}
