import type { Transaction } from 'kysely'
import { z } from 'zod'
import type { Database } from '../database.ts'
import { conflict, notFound } from '../errors.ts'
import type { HouseholdContext } from '../mutator/context.ts'
import { defineMutator, defineQuery, defineUserQuery } from '../mutator/define.ts'
import type { Role } from '../scopes.ts'
import { MemberKeyArgsSchema, RemoveMemberArgsSchema, UpdateMemberArgsSchema } from './membership-schema.ts'
import { type Household, toApiKey, toHousehold } from './model.ts'

/** A household the caller belongs to, with their role and when they joined. */
export interface MyHousehold extends Household {
  role: Role
  joinedAt: string
}

/** A member's membership, locked for the change about to be made to it; 404 when there is none. */
async function lockedMembership(tx: Transaction<Database>, ctx: HouseholdContext, userId: string) {
  const row = await tx
    .selectFrom('memberships')
    .select(['user_id', 'role'])
    .where('household_id', '=', ctx.householdId)
    .where('user_id', '=', userId)
    .forUpdate()
    .executeTakeFirst()
  if (!row) throw notFound('Member', userId)
  return row
}

/** Refuses a change that would leave the household with no owner. */
async function keepAnOwner(tx: Transaction<Database>, ctx: HouseholdContext, losing: string) {
  // The household clock the run holds serializes membership changes, so this count stays true.
  const other = await tx
    .selectFrom('memberships')
    .select('user_id')
    .where('household_id', '=', ctx.householdId)
    .where('role', '=', 'owner')
    .where('user_id', '!=', losing)
    .executeTakeFirst()
  if (!other) {
    throw conflict('LAST_OWNER', 'A household needs an owner: make another member an owner first.', {
      userId: losing,
    })
  }
}

/** Ends a membership: the row goes, and a default household that pointed here is cleared. */
async function endMembership(tx: Transaction<Database>, ctx: HouseholdContext, userId: string) {
  await tx
    .deleteFrom('memberships')
    .where('household_id', '=', ctx.householdId)
    .where('user_id', '=', userId)
    .execute()
  await tx
    .updateTable('users')
    .set({ default_household_id: null, updated_at: ctx.now })
    .where('id', '=', userId)
    .where('default_household_id', '=', ctx.householdId)
    .execute()
}

/** Changes a member's role; the last owner cannot be demoted. Owners only. */
export const updateMember = defineMutator({
  audience: 'server',
  description: "Changes a member's role.",
  scope: 'write:households',
  ownerOnly: true,
  args: UpdateMemberArgsSchema,
  async run(tx, args, ctx) {
    const member = await lockedMembership(tx, ctx, args.userId)
    if (member.role === 'owner' && args.role !== 'owner') await keepAnOwner(tx, ctx, args.userId)
    await tx
      .updateTable('memberships')
      .set({ role: args.role })
      .where('household_id', '=', ctx.householdId)
      .where('user_id', '=', args.userId)
      .execute()
    return { householdId: ctx.householdId, userId: args.userId, role: args.role }
  },
})

/** Removes a member from the household; the last owner cannot be removed. Owners only. */
export const removeMember = defineMutator({
  audience: 'server',
  description: 'Removes a member from the household.',
  scope: 'write:households',
  ownerOnly: true,
  args: RemoveMemberArgsSchema,
  async run(tx, args, ctx) {
    const member = await lockedMembership(tx, ctx, args.userId)
    if (member.role === 'owner') await keepAnOwner(tx, ctx, args.userId)
    await endMembership(tx, ctx, args.userId)
    return { householdId: ctx.householdId, userId: args.userId }
  },
})

/** The caller leaves the household; its last owner cannot. */
export const leaveHousehold = defineMutator({
  audience: 'server',
  description: 'Leaves the household.',
  scope: 'write:profile',
  args: z.strictObject({}),
  async run(tx, _args, ctx) {
    const member = await lockedMembership(tx, ctx, ctx.userId)
    if (member.role === 'owner') await keepAnOwner(tx, ctx, ctx.userId)
    await endMembership(tx, ctx, ctx.userId)
    return { householdId: ctx.householdId, userId: ctx.userId }
  },
})

/** The households the caller belongs to, oldest membership first. */
export const listMyHouseholds = defineUserQuery({
  audience: 'server',
  description: 'The households you belong to, with your role in each.',
  scope: 'read:households',
  args: z.strictObject({}),
  async run(db, _args, ctx): Promise<MyHousehold[]> {
    const rows = await db
      .selectFrom('memberships as m')
      .innerJoin('households as h', 'h.id', 'm.household_id')
      .selectAll('h')
      .select(['m.role', 'm.created_at as joined_at'])
      .where('m.user_id', '=', ctx.userId)
      .orderBy('m.created_at')
      .orderBy('h.id')
      .execute()
    return rows.map((r) => ({ ...toHousehold(r), role: r.role, joinedAt: r.joined_at.toISOString() }))
  },
})

/** A member's API keys, so an owner can find the one to revoke; owners only. */
export const listMemberKeys = defineQuery({
  audience: 'server',
  description: "A member's API keys, newest first, secrets never shown.",
  scope: 'read:households',
  ownerOnly: true,
  args: RemoveMemberArgsSchema,
  async run(db, args, ctx) {
    const member = await db
      .selectFrom('memberships')
      .select('user_id')
      .where('household_id', '=', ctx.householdId)
      .where('user_id', '=', args.userId)
      .executeTakeFirst()
    if (!member) throw notFound('Member', args.userId)
    const rows = await db
      .selectFrom('api_keys')
      .selectAll()
      .where('user_id', '=', args.userId)
      .where('kind', '=', 'key')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute()
    return rows.map(toApiKey)
  },
})

/**
 * Revokes a member's key; owners only. A key acts for its user in every household they are in,
 * so revoking it ends it everywhere: the member makes a new one (documented).
 */
export const revokeMemberKey = defineMutator({
  audience: 'server',
  description: "Revokes a member's API key.",
  scope: 'write:households',
  ownerOnly: true,
  args: MemberKeyArgsSchema,
  async run(tx, args, ctx) {
    await lockedMembership(tx, ctx, args.userId)
    const row = await tx
      .updateTable('api_keys')
      .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(ctx.now)) }))
      .where('id', '=', args.id)
      .where('user_id', '=', args.userId)
      .returningAll()
      .executeTakeFirst()
    if (!row) throw notFound('API key', args.id)
    return toApiKey(row)
  },
})
