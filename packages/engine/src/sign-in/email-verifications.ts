import type { Kysely } from 'kysely'
import type { Database } from '../database.ts'
import { conflict, EngineError, notFound } from '../errors.ts'
import { defineUserMutator } from '../mutator/define.ts'
import { IssueEmailVerificationArgsSchema, VerifyEmailArgsSchema } from './schema.ts'

/** A link issued to verify an email: to which address, until when; the code is never part of it. */
export interface EmailVerificationLink {
  id: string
  email: string
  expiresAt: string
}

/** An email as verified: whose, which, since when. */
export interface VerifiedEmail {
  userId: string
  email: string
  emailVerifiedAt: string
}

/**
 * Issues a one-time link that verifies the acting user's current email, for the server to mail
 * there; an earlier unused one stops working. 409 `NO_EMAIL` without an email, 409
 * `EMAIL_ALREADY_VERIFIED` once it is verified.
 */
export const issueEmailVerification = defineUserMutator({
  audience: 'server',
  description: 'Issues a one-time link, mailed to your email, that verifies it.',
  scope: 'write:profile',
  args: IssueEmailVerificationArgsSchema,
  async run(tx, args, ctx): Promise<EmailVerificationLink> {
    const user = await tx
      .selectFrom('users')
      .select(['email', 'email_verified_at'])
      .where('id', '=', ctx.userId)
      .forUpdate()
      .executeTakeFirst()
    if (!user) throw notFound('User', ctx.userId)
    if (!user.email) throw conflict('NO_EMAIL', 'You have no email to verify; set one first.')
    if (user.email_verified_at) throw conflict('EMAIL_ALREADY_VERIFIED', `${user.email} is verified already.`)
    // Only the latest link works: an earlier one unused is spent now.
    await tx
      .updateTable('email_verifications')
      .set({ used_at: ctx.now })
      .where('user_id', '=', ctx.userId)
      .where('used_at', 'is', null)
      .execute()
    await tx
      .insertInto('email_verifications')
      .values({
        id: args.id,
        user_id: ctx.userId,
        email: user.email,
        code_hash: args.codeHash,
        created_at: ctx.now,
        expires_at: new Date(args.expiresAt),
        used_at: null,
      })
      .execute()
    return { id: args.id, email: user.email, expiresAt: args.expiresAt }
  },
})

/** The user a verification link's code is for, so its use can act as them; null for no such code. */
export async function emailVerificationUser(db: Kysely<Database>, codeHash: string): Promise<string | null> {
  const row = await db
    .selectFrom('email_verifications')
    .select('user_id')
    .where('code_hash', '=', codeHash)
    .executeTakeFirst()
  return row?.user_id ?? null
}

/**
 * Verifies the email a link was mailed to, once: 404 for no such link, 410 `LINK_USED` or
 * `LINK_EXPIRED`, and 410 `EMAIL_CHANGED` when the person's email is no longer the one it was sent to.
 */
export const verifyEmail = defineUserMutator({
  audience: 'server',
  description: 'Verifies your email with the one-time link mailed to it.',
  scope: null,
  args: VerifyEmailArgsSchema,
  async run(tx, args, ctx): Promise<VerifiedEmail> {
    const link = await tx
      .selectFrom('email_verifications')
      .selectAll()
      .where('code_hash', '=', args.codeHash)
      .where('user_id', '=', ctx.userId)
      .forUpdate()
      .executeTakeFirst()
    if (!link) throw notFound('Email verification link')
    if (link.used_at) {
      throw new EngineError(
        410,
        'LINK_USED',
        'This link was already used, or a newer one was sent; use the newest.',
      )
    }
    if (link.expires_at.getTime() <= ctx.now.getTime()) {
      throw new EngineError(410, 'LINK_EXPIRED', 'This link has expired; send a new one from your settings.')
    }
    const user = await tx
      .selectFrom('users')
      .select(['email', 'email_verified_at'])
      .where('id', '=', ctx.userId)
      .forUpdate()
      .executeTakeFirstOrThrow()
    if (user.email?.toLowerCase() !== link.email.toLowerCase()) {
      throw new EngineError(
        410,
        'EMAIL_CHANGED',
        `This link verifies ${link.email}, which is no longer your email; send a new one from your settings.`,
      )
    }
    await tx.updateTable('email_verifications').set({ used_at: ctx.now }).where('id', '=', link.id).execute()
    const verifiedAt = user.email_verified_at ?? ctx.now
    await tx
      .updateTable('users')
      .set({ email_verified_at: verifiedAt, updated_at: ctx.now })
      .where('id', '=', ctx.userId)
      .execute()
    return { userId: ctx.userId, email: user.email!, emailVerifiedAt: verifiedAt.toISOString() }
  },
})
