import { type Kysely, type RawBuilder, sql, type Transaction } from 'kysely'
import type { z } from 'zod'
import { activityEntry, isRecorded } from '../changes/activity.ts'
import type { Database } from '../database.ts'
import { EngineError, insufficientScope, ownerOnly } from '../errors.ts'
import { monotonicUlids } from '../shared/ulid.ts'
import { executeDeferred, type SentStatement, sendStatement } from '../store/deferred-writes.ts'
import type { ActorContext, DomainEvent, HouseholdContext, MutationContext } from './context.ts'
import type { Mutator, Operation, Query } from './define.ts'
import { parseArgs } from './parse-args.ts'

const eventId = monotonicUlids()

/** How a mutation's side effects leave the transaction. */
export interface RunOptions {
  /** `outbox` (server) queues emitted events; `discard` (a device) drops them. */
  effects?: 'outbox' | 'discard'
  /**
   * On a device: the pending mutation this run is, whose rows' prior images the change-log
   * triggers then record in `device_undo` (`hearth.undo`) instead of logging changes. Set in
   * the clock's own statement, so a device's write pays no round trip for it; a device runs
   * household mutators only (sync/registry.ts), so every run it makes ticks the clock.
   */
  undoFor?: number
}

/** What a run returns: the mutator's result and the household version it committed at. */
export interface MutationResult<R> {
  result: R
  version: number | null
}

/**
 * Runs a mutator the one way all callers do: authorize from the context (never from args),
 * validate, then in one transaction bump the household clock (which the change-log triggers
 * stamp every row change with), run the body, and queue its events to the outbox.
 */
export async function runMutation<S extends z.ZodType, R, C extends ActorContext>(
  db: Kysely<Database>,
  mutator: Mutator<S, R, C>,
  rawArgs: unknown,
  ctx: C,
  options: RunOptions = {},
): Promise<MutationResult<R>> {
  authorize(mutator, ctx)
  const args = parseArgs(mutator.args, rawArgs)
  return db.transaction().execute((tx) => applyMutation(tx, mutator, args, ctx, options))
}

/**
 * The body of a run inside a transaction the caller owns (sync pushes use it inside a
 * savepoint). Arguments must already be parsed.
 */
export async function applyMutation<S extends z.ZodType, R, C extends ActorContext>(
  tx: Transaction<Database>,
  mutator: Mutator<S, R, C>,
  args: z.output<S>,
  ctx: C,
  options: RunOptions = {},
): Promise<MutationResult<R>> {
  const householdId = mutator.level === 'household' ? (ctx as unknown as HouseholdContext).householdId : null
  const undo = options.undoFor === undefined ? null : String(options.undoFor)
  // The clock's answer is read after the body: a pipelining store sends it with the body's first statement.
  const effects = options.effects ?? 'outbox'
  // The server records who changed what in the same commit (a device keeps none): the clock's
  // statement writes the entry and tells the change-log triggers to keep the rows' images.
  const recorded = householdId !== null && effects === 'outbox' && undo === null && isRecorded(mutator.name)
  const entry = recorded ? activityEntry(householdId!, mutator, ctx) : null
  const clock = householdId ? await tick(tx, householdId, undo, entry) : null
  const events: DomainEvent[] = []
  const mctx = { ...ctx, emit: (type: string, data: Record<string, unknown>) => events.push({ type, data }) }
  const result = await mutator.run(tx, args, mctx as MutationContext<C>)
  const version = clock ? Number((await clock.answer).rows[0]!.version) : null
  if (effects === 'outbox') {
    await queueEvents(tx, { householdId, version, actorUserId: ctx.userId, now: ctx.now }, events)
  }
  return { result, version }
}

/** Where and when queued events happened, and whose action they were. */
export interface EventOrigin {
  householdId: string | null
  /** The household version the change committed at; null for one that changed no row. */
  version: number | null
  actorUserId: string
  now: Date
}

/**
 * Queues events to the outbox in the caller's transaction, each with a fresh `evt_` id: a
 * mutator's (through `applyMutation`), or one the server records outside a mutator, such as a
 * device's refused change. Nothing reads them back: a pipelining store sends the insert with the
 * commit rather than before it.
 */
export async function queueEvents(
  tx: Transaction<Database>,
  origin: EventOrigin,
  events: readonly DomainEvent[],
): Promise<void> {
  if (events.length === 0) return
  // One statement with one JSON parameter however many events (an import of 10,000 rows emits
  // 10,000 `transaction.created`: 30,000 bound values as a multi-row VALUES), in emission order:
  // the outbox's ids follow the array's.
  const payloads = events.map((e) => ({
    id: `evt_${eventId()}`,
    type: e.type,
    householdId: origin.householdId,
    occurredAt: origin.now.toISOString(),
    version: origin.version,
    actorUserId: origin.actorUserId,
    data: e.data,
  }))
  await executeDeferred(
    tx,
    sql`insert into outbox (household_id, topic, payload)
      select ${origin.householdId}::text, 'event', e.payload
      from jsonb_array_elements(${JSON.stringify(payloads)}::jsonb) with ordinality as e(payload, n)
      order by e.n`,
  )
}

/** Runs a read after the same scope check a mutator gets. */
export async function runQuery<S extends z.ZodType, R, C extends ActorContext>(
  db: Kysely<Database>,
  query: Query<S, R, C>,
  rawArgs: unknown,
  ctx: C,
): Promise<R> {
  if (query.scope && !ctx.scopes.includes(query.scope)) throw insufficientScope(query.scope)
  return query.run(db, parseArgs(query.args, rawArgs), ctx)
}

/** Checks scope and role; the same check serves REST routes and sync pushes. */
export function authorize(mutator: Operation, ctx: ActorContext): void {
  if (mutator.scope && !ctx.scopes.includes(mutator.scope)) throw insufficientScope(mutator.scope)
  if (mutator.ownerOnly && (ctx as HouseholdContext).role !== 'owner') throw ownerOnly()
  if (mutator.level === 'household' && !(ctx as HouseholdContext).householdId) {
    throw new EngineError(400, 'HOUSEHOLD_REQUIRED', `${mutator.name} needs a household.`)
  }
}

/**
 * Takes the household's clock lock and the next version, and tells the change-log triggers
 * which version this transaction writes. Serializes mutations within one household. Sent without
 * waiting: the version is read once the body has run.
 */
async function tick(
  tx: Transaction<Database>,
  householdId: string,
  undo: string | null,
  entry: RawBuilder<unknown> | null,
): Promise<SentStatement<{ version: number }>> {
  // One statement, so a write pays one round trip for its clock rather than two or three.
  return sendStatement(
    tx,
    sql<{ version: number }>`
    with bumped as (
      insert into household_clock (household_id, version) values (${householdId}, 1)
      on conflict (household_id) do update set version = household_clock.version + 1
      returning version
    )${entry ?? sql``}
    select version, set_config('hearth.version', version::text, true),
      set_config('hearth.activity_op', ${entry ? 'on' : ''}, true)
      ${undo === null ? sql`` : sql`, set_config('hearth.undo', ${undo}, true)`}
    from bumped`,
  )
}
