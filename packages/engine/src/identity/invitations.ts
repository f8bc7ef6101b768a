import type { Kysely } from 'kysely'
import { z } from 'zod'
import type { Database } from '../database.ts'
import { conflict, EngineError, invalid, notFound } from '../errors.ts'
import { defineMutator, defineQuery, defineUserMutator } from '../mutator/define.ts'
import type { Role, Scope } from '../scopes.ts'
import { insertChallenge, insertRedeemedPasskey } from '../sign-in/factors.ts'
import { storePassword } from '../sign-in/passwords.ts'
import { RedeemPasskeyOptionsArgsSchema } from '../sign-in/schema.ts'
import { insertSession, type Session } from '../sign-in/sessions.ts'
import { invitationGrant } from './invitation-presets.ts'
import {
  CreateInvitationArgsSchema,
  INVITATION_DEFAULT_DAYS,
  INVITATION_MAX_DAYS,
  InvitationIdArgsSchema,
  RedeemInvitationArgsSchema,
} from './membership-schema.ts'
import { type ApiKey, type Household, toHousehold } from './model.ts'
import { createApiKey, createUser } from './mutators.ts'
import type { InvitationRow } from './tables.ts'

const DAY_MS = 24 * 60 * 60 * 1000

/** Where an invitation stands at an instant. */
export type InvitationStatus = 'pending' | 'redeemed' | 'revoked' | 'expired'

/** An invitation as owners see it; the code is never part of it. */
export interface Invitation {
  id: string
  role: Role
  scopes: Scope[]
  prefix: string
  note: string | null
  status: InvitationStatus
  createdBy: string
  createdAt: string
  expiresAt: string
  redeemedAt: string | null
  redeemedBy: string | null
  revokedAt: string | null
}

/**
 * What redeeming gives: the household joined, the user who joined it, their role, and their first
 * key, or the browser's session when they joined by signing up with a password.
 */
export interface Redemption {
  household: Household
  userId: string
  role: Role
  apiKey: ApiKey | null
  session?: Session
}

function statusOf(row: InvitationRow, now: Date): InvitationStatus {
  if (row.redeemed_at) return 'redeemed'
  if (row.revoked_at) return 'revoked'
  return row.expires_at.getTime() <= now.getTime() ? 'expired' : 'pending'
}

function toInvitation(row: InvitationRow, now: Date): Invitation {
  return {
    id: row.id,
    role: row.role,
    scopes: row.scopes as Scope[],
    prefix: row.prefix,
    note: row.note,
    status: statusOf(row, now),
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    redeemedAt: row.redeemed_at?.toISOString() ?? null,
    redeemedBy: row.redeemed_by,
    revokedAt: row.revoked_at?.toISOString() ?? null,
  }
}

/** Offers a role and a key's scopes (sent, or the role's preset) to whoever redeems the code once; owners only. */
export const createInvitation = defineMutator({
  audience: 'server',
  description:
    'Invites someone into the household with a role (or the viewer preset) and the scopes of the key they will get.',
  scope: 'write:households',
  ownerOnly: true,
  args: CreateInvitationArgsSchema,
  async run(tx, args, ctx) {
    const grant = invitationGrant(args, ctx.scopes)
    if (grant.scopes.length === 0) {
      throw new EngineError(
        403,
        'SCOPE_NOT_GRANTABLE',
        `You hold none of the scopes a ${args.role} is invited with; send the scopes to grant.`,
        { extra: { scopes: [] } },
      )
    }
    const excess = grant.scopes.filter((s) => !ctx.scopes.includes(s))
    if (excess.length > 0) {
      throw new EngineError(
        403,
        'SCOPE_NOT_GRANTABLE',
        `You cannot grant scopes you do not hold: ${excess.join(', ')}.`,
        { extra: { scopes: excess } },
      )
    }
    const expiresAt = args.expiresAt
      ? new Date(args.expiresAt)
      : new Date(ctx.now.getTime() + INVITATION_DEFAULT_DAYS * DAY_MS)
    const ahead = expiresAt.getTime() - ctx.now.getTime()
    if (ahead <= 0 || ahead > INVITATION_MAX_DAYS * DAY_MS) {
      throw invalid('VALIDATION_FAILED', 'The request has invalid fields.', [
        {
          path: 'expiresAt',
          message: `Must be in the future and at most ${INVITATION_MAX_DAYS} days ahead.`,
          code: 'out_of_range',
        },
      ])
    }
    const row = await tx
      .insertInto('invitations')
      .values({
        household_id: ctx.householdId,
        id: args.id,
        code_hash: args.codeHash,
        prefix: args.prefix,
        role: grant.role,
        scopes: grant.scopes,
        note: args.note ?? null,
        created_by: ctx.userId,
        created_at: ctx.now,
        expires_at: expiresAt,
        redeemed_at: null,
        redeemed_by: null,
        revoked_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    return toInvitation(row, ctx.now)
  },
})

/** The household's invitations, newest first, used and revoked ones included; owners only. */
export const listInvitations = defineQuery({
  audience: 'server',
  description: "The household's invitations, newest first, with where each stands.",
  scope: 'read:households',
  ownerOnly: true,
  args: z.strictObject({}),
  async run(db, _args, ctx) {
    const rows = await db
      .selectFrom('invitations')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute()
    return rows.map((r) => toInvitation(r, ctx.now))
  },
})

/** Withdraws a pending invitation; revoking twice is harmless, a redeemed one cannot be. */
export const revokeInvitation = defineMutator({
  audience: 'server',
  description: 'Withdraws an invitation that has not been redeemed.',
  scope: 'write:households',
  ownerOnly: true,
  args: InvitationIdArgsSchema,
  async run(tx, args, ctx) {
    const row = await tx
      .selectFrom('invitations')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .forUpdate()
      .executeTakeFirst()
    if (!row) throw notFound('Invitation', args.id)
    if (row.redeemed_at) throw conflict('INVITATION_USED', 'This invitation was already redeemed.')
    const updated = await tx
      .updateTable('invitations')
      .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(ctx.now)) }))
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    return toInvitation(updated, ctx.now)
  },
})

/** The household an invitation code is for, so its redemption can run in that household. */
export async function invitationHousehold(db: Kysely<Database>, codeHash: string): Promise<string | null> {
  const row = await db
    .selectFrom('invitations')
    .select('household_id')
    .where('code_hash', '=', codeHash)
    .executeTakeFirst()
  return row?.household_id ?? null
}

/**
 * Keeps the challenge of a passkey to be made at an invitation's redeem, while the invitation can
 * be redeemed (404, 410 otherwise). No one is made yet: the acting user is the id chosen ahead for
 * the person the redeem will make, bound to the challenge, which answers only this invitation's
 * redeem, once, until `expiresAt`. No household is joined yet, so its clock does not move.
 */
export const beginInvitationPasskey = defineUserMutator({
  audience: 'server',
  description:
    'Starts signing up with a passkey at an invitation: a challenge for your browser, for 5 minutes.',
  scope: null,
  args: RedeemPasskeyOptionsArgsSchema,
  async run(tx, args, ctx) {
    const invitation = await tx
      .selectFrom('invitations')
      .selectAll()
      .where('code_hash', '=', args.codeHash)
      .executeTakeFirst()
    if (!invitation) throw notFound('Invitation')
    const status = statusOf(invitation, ctx.now)
    if (status !== 'pending') throw invitationGone(status)
    await insertChallenge(tx, {
      challenge: args.challenge,
      purpose: 'redeem',
      userId: null,
      newUserId: ctx.userId,
      codeHash: args.codeHash,
      expiresAt: new Date(args.expiresAt),
      now: ctx.now,
    })
    return { expiresAt: args.expiresAt }
  },
})

/**
 * Redeems an invitation once: creates the redeemer's user when they have none, makes them a
 * member with the invited role and issues their first key with the invited scopes, all in one
 * transaction. The acting user is the redeemer, who holds no role in the household yet.
 */
export const redeemInvitation = defineMutator({
  audience: 'server',
  description: 'Joins a household with an invitation code, and issues a key with its scopes.',
  scope: null,
  args: RedeemInvitationArgsSchema,
  async run(tx, args, ctx): Promise<Redemption> {
    if (Boolean(args.key) === Boolean(args.session)) {
      throw new EngineError(400, 'VALIDATION_FAILED', 'Redeem for a key or for a session, one of the two.')
    }
    const invitation = await tx
      .selectFrom('invitations')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .where('code_hash', '=', args.codeHash)
      .forUpdate()
      .executeTakeFirst()
    if (!invitation) throw notFound('Invitation')
    const status = statusOf(invitation, ctx.now)
    if (status !== 'pending') throw invitationGone(status)
    if (args.newUser) {
      if (args.newUser.id !== ctx.userId) {
        throw new EngineError(400, 'USER_MISMATCH', 'The new user must be the acting user.')
      }
      const { passwordHash, passkey, ...user } = args.newUser
      if (passwordHash && passkey) {
        throw new EngineError(
          400,
          'VALIDATION_FAILED',
          'Sign up with a password or a passkey, one of the two.',
        )
      }
      if ((passwordHash || passkey) && !args.session) {
        throw new EngineError(
          400,
          'VALIDATION_FAILED',
          'A person who signs up is signed in, not given a key.',
        )
      }
      await createUser.run(tx, user, ctx)
      if (passwordHash) await storePassword(tx, passwordHash, ctx)
      if (passkey) await insertRedeemedPasskey(tx, args.codeHash, passkey, ctx)
    } else {
      const member = await tx
        .selectFrom('memberships')
        .select('role')
        .where('household_id', '=', ctx.householdId)
        .where('user_id', '=', ctx.userId)
        .executeTakeFirst()
      if (member) throw conflict('ALREADY_MEMBER', 'You are already a member of this household.')
    }
    await tx
      .insertInto('memberships')
      .values({
        household_id: ctx.householdId,
        user_id: ctx.userId,
        role: invitation.role,
        created_at: ctx.now,
      })
      .execute()
    await tx
      .updateTable('users')
      .set({ default_household_id: ctx.householdId })
      .where('id', '=', ctx.userId)
      .where('default_household_id', 'is', null)
      .execute()
    await tx
      .updateTable('invitations')
      .set({ redeemed_at: ctx.now, redeemed_by: ctx.userId })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', invitation.id)
      .execute()
    // The key is issued as any key is, with the invitation's scopes as what may be granted.
    const apiKey = args.key
      ? await createApiKey.run(
          tx,
          { ...args.key, scopes: invitation.scopes as Scope[] },
          { ...ctx, scopes: invitation.scopes as Scope[] },
        )
      : null
    // A person who signed up with a password is signed in instead, with their role's rights.
    const session = args.session ? await insertSession(tx, args.session, ctx) : undefined
    const household = await tx
      .selectFrom('households')
      .selectAll()
      .where('id', '=', ctx.householdId)
      .executeTakeFirstOrThrow()
    return {
      household: toHousehold(household),
      userId: ctx.userId,
      role: invitation.role,
      apiKey,
      ...(session && { session }),
    }
  },
})

function invitationGone(status: Exclude<InvitationStatus, 'pending'>): EngineError {
  const detail = {
    redeemed: ['INVITATION_USED', 'This invitation was already redeemed; ask an owner for a new one.'],
    revoked: ['INVITATION_REVOKED', 'This invitation was withdrawn by an owner; ask for a new one.'],
    expired: ['INVITATION_EXPIRED', 'This invitation has expired; ask an owner for a new one.'],
  } as const
  const [code, message] = detail[status]
  return new EngineError(410, code, message)
}
