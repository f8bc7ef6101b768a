import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../database.ts'
import { conflict, EngineError, notFound } from '../errors.ts'
import type { ActorContext } from '../mutator/context.ts'
import { defineMutator, defineUserMutator } from '../mutator/define.ts'
import { insertChallenge, insertRedeemedPasskey } from './factors.ts'
import { storePassword } from './passwords.ts'
import {
  CreateResetLinkArgsSchema,
  IssueSignInLinkArgsSchema,
  RedeemPasskeyOptionsArgsSchema,
  RedeemSignInLinkArgsSchema,
} from './schema.ts'
import { insertSession, revokeSessions, type Session } from './sessions.ts'

/** A sign-in link as its issuer sees it; the code is never part of it. */
export interface SignInLink {
  id: string
  userId: string
  purpose: 'setup' | 'reset'
  expiresAt: string
}

/** What redeeming a link gives: the user, their email, and the session it signed in. */
export interface LinkRedemption {
  userId: string
  email: string
  session: Session
}

/** Issues a setup or reset link for the acting user: first start and the CLI. */
export const issueSignInLink = defineUserMutator({
  audience: 'system',
  description: 'Issues a one-time link to set a password, for the acting user.',
  scope: null,
  args: IssueSignInLinkArgsSchema,
  async run(tx, args, ctx): Promise<SignInLink> {
    await tx
      .insertInto('sign_in_links')
      .values({
        id: args.id,
        user_id: ctx.userId,
        purpose: args.purpose,
        code_hash: args.codeHash,
        created_by: ctx.userId,
        created_at: ctx.now,
        expires_at: new Date(args.expiresAt),
        used_at: null,
      })
      .execute()
    return { id: args.id, userId: ctx.userId, purpose: args.purpose, expiresAt: args.expiresAt }
  },
})

/** Issues a one-time reset link for a member of the household; owners only. */
export const createResetLink = defineMutator({
  audience: 'server',
  description: 'Issues a one-time link for a member to set a new password.',
  scope: 'write:households',
  ownerOnly: true,
  args: CreateResetLinkArgsSchema,
  async run(tx, args, ctx): Promise<SignInLink & { email: string | null }> {
    const member = await tx
      .selectFrom('memberships as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(['u.id', 'u.email'])
      .where('m.household_id', '=', ctx.householdId)
      .where('m.user_id', '=', args.userId)
      .executeTakeFirst()
    if (!member) throw notFound('Member', args.userId)
    // A new link replaces the member's earlier unused ones: only the latest works.
    await tx
      .updateTable('sign_in_links')
      .set({ used_at: ctx.now })
      .where('user_id', '=', args.userId)
      .where('used_at', 'is', null)
      .execute()
    await tx
      .insertInto('sign_in_links')
      .values({
        id: args.id,
        user_id: args.userId,
        purpose: 'reset',
        code_hash: args.codeHash,
        created_by: ctx.userId,
        created_at: ctx.now,
        expires_at: new Date(args.expiresAt),
        used_at: null,
      })
      .execute()
    return {
      id: args.id,
      userId: args.userId,
      purpose: 'reset',
      expiresAt: args.expiresAt,
      email: member.email,
    }
  },
})

/** The user a link's code is for, so its redemption can act as them; null for no such code. */
export async function signInLinkUser(db: Kysely<Database>, codeHash: string): Promise<string | null> {
  const row = await db
    .selectFrom('sign_in_links')
    .select('user_id')
    .where('code_hash', '=', codeHash)
    .executeTakeFirst()
  return row?.user_id ?? null
}

/** A link's row, locked, while it can be redeemed: 404 for no such link, 410 used or expired. */
async function pendingLink(tx: Transaction<Database>, codeHash: string, ctx: ActorContext) {
  const link = await tx
    .selectFrom('sign_in_links')
    .selectAll()
    .where('code_hash', '=', codeHash)
    .where('user_id', '=', ctx.userId)
    .forUpdate()
    .executeTakeFirst()
  if (!link) throw notFound('Sign-in link')
  if (link.used_at) {
    throw new EngineError(410, 'LINK_USED', 'This link was already used; ask an owner for a new one.')
  }
  if (link.expires_at.getTime() <= ctx.now.getTime()) {
    throw new EngineError(410, 'LINK_EXPIRED', 'This link has expired; ask an owner for a new one.')
  }
  return link
}

/**
 * Keeps the challenge of a passkey to be made with a link, for the link's user, while the link can
 * be redeemed (410 otherwise): it answers only this link's redeem, once, until `expiresAt`.
 */
export const beginLinkPasskey = defineUserMutator({
  audience: 'server',
  description: 'Starts making a passkey with a one-time link: a challenge for your browser, for 5 minutes.',
  scope: null,
  args: RedeemPasskeyOptionsArgsSchema,
  async run(tx, args, ctx) {
    await pendingLink(tx, args.codeHash, ctx)
    await insertChallenge(tx, {
      challenge: args.challenge,
      purpose: 'redeem',
      userId: ctx.userId,
      codeHash: args.codeHash,
      expiresAt: new Date(args.expiresAt),
      now: ctx.now,
    })
    return { expiresAt: args.expiresAt }
  },
})

/**
 * Redeems a setup or reset link once: sets the password or adds the passkey made for the link
 * (and sets the email, when the user has none), ends every session the user had, and signs this
 * browser in, all in one transaction.
 */
export const redeemSignInLink = defineUserMutator({
  audience: 'server',
  description: 'Sets a password or adds a passkey with a one-time link, and signs in.',
  scope: null,
  args: RedeemSignInLinkArgsSchema,
  async run(tx, args, ctx): Promise<LinkRedemption> {
    if ((args.passwordHash === undefined) === (args.passkey === undefined)) {
      throw new EngineError(400, 'VALIDATION_FAILED', 'Redeem with a password or a passkey, one of the two.')
    }
    const link = await pendingLink(tx, args.codeHash, ctx)
    const user = await tx
      .selectFrom('users')
      .select(['email'])
      .where('id', '=', ctx.userId)
      .executeTakeFirstOrThrow()
    const email = user.email ?? args.email ?? null
    if (!email) {
      throw new EngineError(400, 'VALIDATION_FAILED', 'The request has invalid fields.', {
        errors: [{ path: 'email', message: 'Required: you sign in with it.', code: 'required' }],
      })
    }
    if (!user.email || args.name !== undefined) {
      if (!user.email) {
        const taken = await tx
          .selectFrom('users')
          .select('id')
          .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
          .executeTakeFirst()
        if (taken) throw conflict('EMAIL_TAKEN', `A user with the email ${email} already exists.`)
      }
      await tx
        .updateTable('users')
        .set({ email, ...(args.name !== undefined && { name: args.name }), updated_at: ctx.now })
        .where('id', '=', ctx.userId)
        .execute()
    }
    await tx.updateTable('sign_in_links').set({ used_at: ctx.now }).where('id', '=', link.id).execute()
    if (args.passkey) await insertRedeemedPasskey(tx, args.codeHash, args.passkey, ctx)
    else await storePassword(tx, args.passwordHash!, ctx)
    await revokeSessions(tx, ctx)
    const session = await insertSession(tx, args.session, ctx)
    return { userId: ctx.userId, email, session }
  },
})
