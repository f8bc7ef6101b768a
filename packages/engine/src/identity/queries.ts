import { z } from 'zod'
import { notFound } from '../errors.ts'
import { defineQuery, defineUserQuery } from '../mutator/define.ts'
import type { Role } from '../scopes.ts'
import { type Member, toApiKey, toHousehold, toUser } from './model.ts'

const NoArgs = z.strictObject({})

/** The household the context names. */
export const getHousehold = defineQuery({
  audience: 'device',
  description: 'The household the context names.',
  scope: 'read:households',
  args: NoArgs,
  async run(db, _args, ctx) {
    const row = await db
      .selectFrom('households')
      .selectAll()
      .where('id', '=', ctx.householdId)
      .executeTakeFirst()
    if (!row) throw notFound('Household', ctx.householdId)
    return toHousehold(row)
  },
})

/** Everyone in the household with their role, owners first, then by join date. */
export const listMembers = defineQuery({
  audience: 'server',
  description: 'Everyone in the household with their role, owners first, then by join date.',
  scope: 'read:households',
  args: NoArgs,
  async run(db, _args, ctx): Promise<Member[]> {
    const rows = await db
      .selectFrom('memberships as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(['u.id', 'u.name', 'u.email', 'm.role', 'm.created_at'])
      .where('m.household_id', '=', ctx.householdId)
      .orderBy('m.role', 'desc')
      .orderBy('m.created_at')
      .orderBy('u.id')
      .execute()
    return rows.map((r) => ({
      userId: r.id,
      name: r.name,
      email: r.email,
      role: r.role as Role,
      joinedAt: r.created_at.toISOString(),
    }))
  },
})

/** The caller's own profile. */
export const getProfile = defineUserQuery({
  audience: 'server',
  description: "The caller's own profile.",
  scope: 'read:profile',
  args: NoArgs,
  async run(db, _args, ctx) {
    const row = await db.selectFrom('users').selectAll().where('id', '=', ctx.userId).executeTakeFirst()
    if (!row) throw notFound('User', ctx.userId)
    return toUser(row)
  },
})

/** The caller's keys, newest first, revoked ones included so the history stays visible. */
export const listApiKeys = defineUserQuery({
  audience: 'server',
  description: "The caller's keys, newest first, revoked ones included so the history stays visible.",
  scope: 'read:profile',
  args: NoArgs,
  async run(db, _args, ctx) {
    const rows = await db
      .selectFrom('api_keys')
      .selectAll()
      .where('user_id', '=', ctx.userId)
      .where('kind', '=', 'key')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute()
    return rows.map(toApiKey)
  },
})
