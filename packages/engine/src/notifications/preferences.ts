import { sql, type Transaction } from 'kysely'
import { NoArgsSchema } from '../catalog/fields.ts'
import type { Database } from '../database.ts'
import { defineUserMutator } from '../mutator/define.ts'
import {
  defaultPreferences,
  NOTIFICATION_KIND_NAMES,
  type NotificationChannel,
  type NotificationKind,
  type NotificationPreference,
} from './kinds.ts'
import { UpdatePreferencesArgsSchema } from './schema.ts'

/** Writes the defaults for every (kind, channel) the user has no row for yet. */
async function seed(tx: Transaction<Database>, userId: string, now: Date): Promise<void> {
  await tx
    .insertInto('notification_preferences')
    .values(
      defaultPreferences().map((p) => ({
        user_id: userId,
        kind: p.kind,
        channel: p.channel,
        enabled: p.enabled,
        lock_screen_details: p.lockScreenDetails,
        threshold_cents: p.thresholdCents,
        updated_at: now,
      })),
    )
    .onConflict((oc) => oc.columns(['user_id', 'kind', 'channel']).doNothing())
    .execute()
}

/** The user's preferences, kind by kind in catalog order, channel by channel. */
async function load(tx: Transaction<Database>, userId: string): Promise<NotificationPreference[]> {
  const rows = await tx
    .selectFrom('notification_preferences')
    .selectAll()
    .where('user_id', '=', userId)
    .execute()
  const order = (r: { kind: string; channel: string }) =>
    NOTIFICATION_KIND_NAMES.indexOf(r.kind as NotificationKind) * 10 +
    ['in_app', 'email', 'push'].indexOf(r.channel)
  return rows
    .sort((a, b) => order(a) - order(b))
    .map((r) => ({
      kind: r.kind as NotificationKind,
      channel: r.channel as NotificationChannel,
      enabled: r.enabled,
      lockScreenDetails: r.lock_screen_details,
      thresholdCents: r.threshold_cents === null ? null : String(r.threshold_cents),
    }))
}

/** The caller's preferences, seeding the defaults on the first call. */
export const listNotificationPreferences = defineUserMutator({
  audience: 'server',
  description: 'Lists your notification preferences, seeding the defaults on the first call.',
  scope: 'read:notifications',
  args: NoArgsSchema,
  async run(tx, _args, ctx) {
    await seed(tx, ctx.userId, ctx.now)
    return load(tx, ctx.userId)
  },
})

/** Upserts (kind, channel) preferences; a field left out keeps its value. */
export const updateNotificationPreferences = defineUserMutator({
  audience: 'server',
  description: 'Upserts your notification preferences.',
  scope: 'write:notifications',
  args: UpdatePreferencesArgsSchema,
  async run(tx, args, ctx) {
    await seed(tx, ctx.userId, ctx.now)
    for (const p of args.items) {
      await tx
        .updateTable('notification_preferences')
        .set({
          enabled: p.enabled,
          ...(p.lockScreenDetails !== undefined && { lock_screen_details: p.lockScreenDetails }),
          ...(p.thresholdCents !== undefined && {
            threshold_cents: sql`${p.thresholdCents}::bigint` as never,
          }),
          updated_at: ctx.now,
        })
        .where('user_id', '=', ctx.userId)
        .where('kind', '=', p.kind)
        .where('channel', '=', p.channel)
        .execute()
    }
    return load(tx, ctx.userId)
  },
})
