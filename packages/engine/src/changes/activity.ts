import { type RawBuilder, sql, type Transaction } from 'kysely'
import type { Database } from '../database.ts'
import type { ActorContext } from '../mutator/context.ts'
import { monotonicUlids } from '../shared/ulid.ts'
import { executeDeferred } from '../store/deferred-writes.ts'

const activityId = monotonicUlids()

/**
 * Operations that are no household activity: a member's own notification feed (generated for
 * each event, read and dismissed by its member alone). Every other household operation the
 * server commits is recorded.
 */
const UNRECORDED_NOUNS = new Set(['notifications'])

/** Whether the server records an activity entry for the operation named `name`. */
export function isRecorded(name: string): boolean {
  return !UNRECORDED_NOUNS.has(name.slice(0, name.indexOf('.')))
}

/** How an activity row names its actor: the kind of credential or agent, and which one. */
export function actorOf(ctx: ActorContext): { kind: string; ref: string | null } {
  const via = ctx.via
  if (via?.kind === 'key') return { kind: 'key', ref: via.keyId }
  if (via?.kind === 'session') return { kind: 'session', ref: via.sessionId }
  if (via?.kind === 'job') return { kind: 'job', ref: via.job }
  if (via?.kind === 'assistant') return { kind: 'assistant', ref: via.actionId }
  if (via?.kind === 'cli') return { kind: 'cli', ref: null }
  if (ctx.clientId) return { kind: 'device', ref: ctx.clientId }
  return { kind: 'member', ref: null }
}

/**
 * The part of the clock's statement that records a household operation's activity entry, in its
 * own transaction and at the version the clock takes (`bumped`): who, through what, which
 * operation. The row images are the change-log triggers' (`activity_changes`). Riding on the
 * clock's statement, it costs a write no statement of its own; a session with
 * `hearth.activity = 'off'` skips it (the bench compares a write with and without).
 */
export function activityEntry(
  householdId: string,
  operation: { name: string; scope: string | null },
  ctx: ActorContext,
): RawBuilder<unknown> {
  const actor = actorOf(ctx)
  return sql`, recorded as (
      insert into activity (household_id, version, id, occurred_at, operation, scope, user_id, actor_kind, actor_ref,
                            mutation_id)
      select ${householdId}, version, ${activityId()}, ${ctx.now.toISOString()}::timestamptz, ${operation.name},
             ${operation.scope}, ${ctx.userId}, ${actor.kind}, ${actor.ref},
             ${actor.kind === 'device' ? (ctx.mutationId ?? null) : null}::bigint
      from bumped
      where current_setting('hearth.activity', true) is distinct from 'off')`
}

/**
 * Names another operation and actor on the entry of the operation running in `tx`: the
 * assistant's confirmed action is recorded as the operation it ran, done by the assistant.
 */
export async function relabelActivity(
  tx: Transaction<Database>,
  householdId: string,
  operation: { name: string; scope: string | null },
  ctx: ActorContext,
): Promise<void> {
  const actor = actorOf(ctx)
  await executeDeferred(
    tx,
    sql`update activity set operation = ${operation.name}, scope = ${operation.scope}, actor_kind = ${actor.kind},
        actor_ref = ${actor.ref}
      where household_id = ${householdId} and version = current_setting('hearth.version')::bigint`,
  )
}

/** The id of the entry of the operation running in `tx`, if it is recorded. */
export async function currentActivityId(
  tx: Transaction<Database>,
  householdId: string,
): Promise<string | null> {
  const { rows } = await sql<{ id: string }>`select id from activity
    where household_id = ${householdId} and version = current_setting('hearth.version')::bigint`.execute(tx)
  return rows[0]?.id ?? null
}
