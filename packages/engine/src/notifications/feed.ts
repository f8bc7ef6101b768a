import type { Transaction } from 'kysely'
import type { z } from 'zod'
import { NoArgsSchema } from '../catalog/fields.ts'
import type { Database } from '../database.ts'
import { notFound } from '../errors.ts'
import type { ActorContext, HouseholdContext } from '../mutator/context.ts'
import { defineUserMutator, type Mutator } from '../mutator/define.ts'
import { applyMutation } from '../mutator/run.ts'
import type { Role } from '../scopes.ts'
import { dismissNotification, markAllNotificationsRead, markNotificationRead } from './mutators.ts'
import { NotificationIdArgsSchema } from './schema.ts'

/**
 * REST's feed is the user's, across households; a notification's row is its household's, and
 * changes to it must tick that household's clock to reach the member's devices. These user-level
 * operations find the household and run the household operation a device runs, in one transaction.
 */
async function inHousehold<S extends z.ZodType, R>(
  tx: Transaction<Database>,
  ctx: ActorContext,
  householdId: string,
  role: Role,
  mutator: Mutator<S, R, HouseholdContext>,
  args: z.output<S>,
): Promise<R> {
  const hctx: HouseholdContext = { ...ctx, householdId, role }
  return (await applyMutation(tx, mutator, args, hctx)).result
}

/** The household and role of the caller's own notification, while they are still a member there. */
async function locate(tx: Transaction<Database>, userId: string, id: string) {
  const row = await tx
    .selectFrom('notifications as n')
    .innerJoin('memberships as m', (j) =>
      j.onRef('m.household_id', '=', 'n.household_id').onRef('m.user_id', '=', 'n.user_id'),
    )
    .select(['n.household_id', 'm.role'])
    .where('n.id', '=', id)
    .where('n.user_id', '=', userId)
    .executeTakeFirst()
  if (!row) throw notFound('Notification', id)
  return row
}

/** Marks one of the caller's notifications read, wherever its household; idempotent. */
export const readNotification = defineUserMutator({
  audience: 'server',
  description: 'Marks one of your notifications read.',
  scope: 'write:notifications',
  args: NotificationIdArgsSchema,
  async run(tx, args, ctx) {
    const at = await locate(tx, ctx.userId, args.id)
    return inHousehold(tx, ctx, at.household_id, at.role, markNotificationRead, args)
  },
})

/** Dismisses one of the caller's notifications, wherever its household. */
export const dismissFeedNotification = defineUserMutator({
  audience: 'server',
  description: 'Dismisses one of your notifications.',
  scope: 'write:notifications',
  args: NotificationIdArgsSchema,
  async run(tx, args, ctx) {
    const at = await locate(tx, ctx.userId, args.id)
    return inHousehold(tx, ctx, at.household_id, at.role, dismissNotification, args)
  },
})

/** Marks every unread notification of the caller read, in each household they belong to. */
export const markFeedRead = defineUserMutator({
  audience: 'server',
  description: 'Marks all your notifications read.',
  scope: 'write:notifications',
  args: NoArgsSchema,
  async run(tx, _args, ctx) {
    const households = await tx
      .selectFrom('notifications as n')
      .innerJoin('memberships as m', (j) =>
        j.onRef('m.household_id', '=', 'n.household_id').onRef('m.user_id', '=', 'n.user_id'),
      )
      .select(['n.household_id', 'm.role'])
      .distinct()
      .where('n.user_id', '=', ctx.userId)
      .where('n.read_at', 'is', null)
      .execute()
    let marked = 0
    for (const h of households) {
      marked += (await inHousehold(tx, ctx, h.household_id, h.role, markAllNotificationsRead, {})).marked
    }
    return { marked }
  },
})
