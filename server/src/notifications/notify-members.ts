import {
  type EventEnvelope,
  mayNotify,
  type NotificationChannel,
  operations,
  runMutation,
  SCOPES,
  type Store,
} from '@hearth/engine'

/**
 * Generates the notifications an event calls for, as the system actor in its household, in one
 * household transaction (so they sync to each member's devices). Safe to repeat: a notification is
 * unique per (event, member, kind), so an outbox item handled twice, here or on another server,
 * notifies no one twice.
 */
export async function notifyMembers(
  store: Store,
  event: EventEnvelope,
  channels: readonly NotificationChannel[],
  /** One batch's memo of what `mayNotify` read (see there). */
  cache?: Map<string, Promise<string | null>>,
): Promise<void> {
  if (event.householdId === null) return
  const source = { ...event, data: event.data as Record<string, unknown> }
  if (!(await mayNotify(store.db, event.householdId, source, cache))) return
  await runMutation(
    store.db,
    operations.notifications.generate,
    {
      event: {
        id: event.id,
        type: event.type,
        occurredAt: event.occurredAt,
        actorUserId: event.actorUserId ?? null,
        data: source.data,
      },
      channels,
    },
    { householdId: event.householdId, userId: 'system', role: 'owner', scopes: SCOPES, now: new Date() },
  )
}
