import type { Transaction } from 'kysely'
import { NoArgsSchema } from '../catalog/fields.ts'
import type { Database } from '../database.ts'
import { notFound } from '../errors.ts'
import { defineMutator } from '../mutator/define.ts'
import { monotonicUlids } from '../shared/ulid.ts'
import { draftFor } from './compose.ts'
import {
  DEFAULT_LARGE_TRANSACTION_CENTS,
  formatCents,
  NOTIFICATION_CHANNELS,
  NOTIFICATION_KINDS,
} from './kinds.ts'
import { type Notification, toNotification } from './model.ts'
import { GenerateNotificationsArgsSchema, NotificationIdArgsSchema } from './schema.ts'

/** The outbox topic of an email or push still to send: one per channel, so only a server that can send on it claims it. */
export function notificationSendTopic(channel: string): string {
  return `notification.${channel}`
}

/**
 * Notification ids, increasing within this process even within one millisecond: the feed is
 * newest first by id, and the outbox hands events over in order, so a burst keeps its order
 * (random ids within a millisecond had shuffled it).
 */
const notificationIds = monotonicUlids()

/** The caller's own notification in this household, or 404 (another member's is not theirs to see). */
async function requireOwn(tx: Transaction<Database>, householdId: string, userId: string, id: string) {
  const row = await tx
    .selectFrom('notifications')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst()
  if (!row) throw notFound('Notification', id)
  return row
}

/** Marks one of the caller's notifications read; reading it again keeps the first time. */
export const markNotificationRead = defineMutator({
  audience: 'device',
  description: 'Marks one of your notifications read.',
  scope: 'write:notifications',
  args: NotificationIdArgsSchema,
  async run(tx, args, ctx): Promise<Notification> {
    const row = await requireOwn(tx, ctx.householdId, ctx.userId, args.id)
    if (row.read_at !== null) return toNotification(row)
    const updated = await tx
      .updateTable('notifications')
      .set({ read_at: ctx.now })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    return toNotification(updated)
  },
})

/** Dismisses one of the caller's notifications: it leaves the default feed; dismissing again is harmless. */
export const dismissNotification = defineMutator({
  audience: 'device',
  description: 'Dismisses one of your notifications.',
  scope: 'write:notifications',
  args: NotificationIdArgsSchema,
  async run(tx, args, ctx) {
    const row = await requireOwn(tx, ctx.householdId, ctx.userId, args.id)
    if (row.dismissed_at === null) {
      await tx
        .updateTable('notifications')
        .set({ dismissed_at: ctx.now })
        .where('household_id', '=', ctx.householdId)
        .where('id', '=', args.id)
        .execute()
    }
    return { id: args.id }
  },
})

/** Marks every unread notification of the caller in this household read. */
export const markAllNotificationsRead = defineMutator({
  audience: 'device',
  description: 'Marks all your notifications in this household read.',
  scope: 'write:notifications',
  args: NoArgsSchema,
  async run(tx, _args, ctx) {
    const result = await tx
      .updateTable('notifications')
      .set({ read_at: ctx.now })
      .where('household_id', '=', ctx.householdId)
      .where('user_id', '=', ctx.userId)
      .where('read_at', 'is', null)
      .executeTakeFirst()
    return { marked: Number(result.numUpdatedRows) }
  },
})

/**
 * Turns one event into notifications for the household's current members whose preferences
 * allow its kind: once per (event, member, kind), however often it runs (a unique key), never for
 * a member who has left, and not for the member whose action it was unless the kind says so (a
 * refused change is told to that member alone).
 * A member with the feed off but email or push on gets a row born dismissed, for those to send.
 */
export const generateNotifications = defineMutator({
  audience: 'system',
  description: 'Generates the notifications one domain event calls for.',
  scope: null,
  args: GenerateNotificationsArgsSchema,
  async run(tx, args, ctx) {
    const draft = draftFor(args.event, formatCents)
    if (!draft) return { created: 0 }
    const kind = NOTIFICATION_KINDS[draft.kind]
    if (!kind.live) return { created: 0 }
    let members = await tx
      .selectFrom('memberships')
      .select(['user_id', 'role'])
      .where('household_id', '=', ctx.householdId)
      .execute()
    if (kind.ownersOnly) members = members.filter((m) => m.role === 'owner')
    if (!kind.aboutOwnAction) members = members.filter((m) => m.user_id !== args.event.actorUserId)
    if (kind.actorOnly) members = members.filter((m) => m.user_id === args.event.actorUserId)
    if (members.length === 0) return { created: 0 }
    const prefs = await tx
      .selectFrom('notification_preferences')
      .selectAll()
      .where(
        'user_id',
        'in',
        members.map((m) => m.user_id),
      )
      .where('kind', '=', draft.kind)
      .execute()
    let created = 0
    for (const member of members) {
      const channels = NOTIFICATION_CHANNELS.filter((channel) => {
        if (channel !== 'in_app' && !args.channels.includes(channel)) return false
        const pref = prefs.find((p) => p.user_id === member.user_id && p.channel === channel)
        const enabled = pref ? pref.enabled : (kind.defaults as readonly string[]).includes(channel)
        const threshold = BigInt(pref?.threshold_cents ?? DEFAULT_LARGE_TRANSACTION_CENTS)
        return enabled && (draft.amountCents === undefined || draft.amountCents >= threshold)
      })
      if (channels.length === 0) continue
      const row = await tx
        .insertInto('notifications')
        .values({
          household_id: ctx.householdId,
          id: notificationIds(),
          user_id: member.user_id,
          kind: draft.kind,
          title: draft.title,
          body: draft.body,
          subject: JSON.stringify(draft.subject),
          event_id: args.event.id,
          created_at: ctx.now,
          dismissed_at: channels.includes('in_app') ? null : ctx.now,
        })
        .onConflict((oc) => oc.columns(['event_id', 'user_id', 'kind']).doNothing())
        .returning('id')
        .executeTakeFirst()
      if (!row) continue
      created++
      const sends = channels.filter((c) => c !== 'in_app')
      if (sends.length > 0) {
        // Sent by the server after the commit, through the outbox: never for a rolled-back row.
        await tx
          .insertInto('outbox')
          .values(
            sends.map((channel) => ({
              household_id: ctx.householdId,
              topic: notificationSendTopic(channel),
              payload: JSON.stringify({ householdId: ctx.householdId, notificationId: row.id, channel }),
            })),
          )
          .execute()
      }
    }
    return { created }
  },
})
