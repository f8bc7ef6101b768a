import { NoArgsSchema } from '../catalog/fields.ts'
import { defineQuery, defineUserQuery } from '../mutator/define.ts'
import { decodeIdCursor, encodeIdCursor, pageOf } from '../shared/cursor.ts'
import { type Notification, toNotification } from './model.ts'
import { ListNotificationsArgsSchema } from './schema.ts'

/**
 * The caller's feed across the households they are still a member of, newest first: unread and
 * undismissed ones unless `includeRead` or `includeDismissed` say otherwise.
 */
export const listNotificationFeed = defineUserQuery({
  audience: 'server',
  description: 'Lists your notifications, newest first.',
  scope: 'read:notifications',
  args: ListNotificationsArgsSchema,
  async run(db, args, ctx): Promise<{ items: Notification[]; nextCursor: string | null }> {
    const limit = args.limit ?? 50
    let query = db
      .selectFrom('notifications as n')
      .innerJoin('memberships as m', (j) =>
        j.onRef('m.household_id', '=', 'n.household_id').onRef('m.user_id', '=', 'n.user_id'),
      )
      .selectAll('n')
      .where('n.user_id', '=', ctx.userId)
    if (!args.includeRead) query = query.where('n.read_at', 'is', null)
    if (!args.includeDismissed) query = query.where('n.dismissed_at', 'is', null)
    if (args.cursor) query = query.where('n.id', '<', decodeIdCursor(args.cursor))
    const rows = await query
      .orderBy('n.id', 'desc')
      .limit(limit + 1)
      .execute()
    const { page, nextCursor } = pageOf(rows, limit, (last) => encodeIdCursor(last.id))
    return { items: page.map(toNotification), nextCursor }
  },
})

/** The caller's undismissed notifications in this household, newest first: a device's offline feed. */
export const listHouseholdNotifications = defineQuery({
  audience: 'device',
  description: 'Lists your undismissed notifications in this household, newest first.',
  scope: 'read:notifications',
  args: NoArgsSchema,
  async run(db, _args, ctx): Promise<Notification[]> {
    const rows = await db
      .selectFrom('notifications')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .where('user_id', '=', ctx.userId)
      .where('dismissed_at', 'is', null)
      .orderBy('id', 'desc')
      .limit(200)
      .execute()
    return rows.map(toNotification)
  },
})
