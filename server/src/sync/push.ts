import type { MutationResult, SyncMutation } from '@hearth/contracts'
import {
  applyMutation,
  authorize,
  type Database,
  EngineError,
  executeDeferred,
  type HouseholdContext,
  parseArgs,
  type Store,
} from '@hearth/engine'
import {
  deviceMutator,
  type HouseholdDelta,
  recordRejection,
  sendVersionsRead,
  syncDb,
} from '@hearth/engine/sync'
import { sql, type Transaction } from 'kysely'
import type { Logger } from 'pino'
import { type Device, sameRights, sendDeviceLock } from './devices.ts'

/** What a push did: each mutation's outcome, and the device's lmid after it. */
export interface PushOutcome {
  lmid: number
  results: MutationResult[]
  /**
   * The household delta the push committed, built from the change-log rows its transaction
   * wrote (read in that transaction, so nobody reads them back afterwards): present when the push
   * committed in one transaction and applied at least one mutation. Its versions are contiguous,
   * since each applied mutation took the household's clock lock until the commit.
   */
  committed?: HouseholdDelta
  /** The device with its scopes and role as the push found them (it checks them again). */
  device: Device
}

type Tx = Transaction<Database>

/** The device's record moved since its caller last saw it: the batch runs the careful way. */
class StaleDevice extends Error {}

/** How many mutations, and how long, one push transaction takes at most before it commits. */
export interface PushBatching {
  maxMutations?: number
  maxMs?: number
}

/**
 * Runs a device's mutations exactly once and in order. They run in transactions of a few
 * mutations each (group commit: one fsync for many; at most 100 mutations or 20 ms, then other
 * requests get their turn): each transaction locks the device row
 * (checking its key and membership again in the same statement, see `sendDeviceLock`), skips
 * ids at or below its lmid, and runs every mutation in a savepoint of its own, authorized from the
 * device (never from args) and with its own household version. A refused mutation rolls back to
 * its savepoint and is recorded as rejected; lmid advances past it either way, so one bad
 * mutation never blocks the queue. If a transaction fails as a whole (the database went away),
 * none of its mutations count and lmid stays, so the device's retry runs them once.
 */
export async function pushMutations(
  store: Store,
  device: Device,
  mutations: readonly SyncMutation[],
  logger?: Logger,
  batching: PushBatching = {},
  expectedLmid?: number,
): Promise<PushOutcome> {
  const maxMutations = batching.maxMutations ?? 100
  const maxMs = batching.maxMs ?? 20
  const results: MutationResult[] = []
  let lmid = 0
  let next = 0
  let committed: HouseholdDelta | undefined
  /** The device as its key and membership stand now, checked as each transaction starts. */
  let checked = device
  const batch = (optimistic: boolean) =>
    store.db.transaction().execute(async (tx) => {
      const db = syncDb(tx)
      const lock = await sendDeviceLock(tx, device)
      // A first optimistic batch of a device whose lmid the caller knows goes on as the device
      // last stood: its lock rides with the first mutation's statements and is checked before
      // the batch ends; a retry (an lmid that moved), a changed role or scope, a revoked key or
      // a removed member fails the batch, which then runs the careful way on what the lock found.
      const guessed = optimistic && next === 0 && expectedLmid !== undefined
      const record = guessed ? { device, lmid: expectedLmid } : await lock.locked()
      checked = record.device
      const started = performance.now()
      if (optimistic) await executeDeferred(tx, sql`set constraints all deferred`)
      /** Whether a mutation of this batch has run, whose deferred checks are still to come. */
      let applied = false
      const done: MutationResult[] = []
      let first: number | null = null
      let version: number | null = null
      let last = record.lmid
      let i = next
      for (; i < mutations.length && i - next < maxMutations && performance.now() - started < maxMs; i++) {
        const mutation = mutations[i]!
        if (mutation.id <= last) {
          done.push({ id: mutation.id, status: 'skipped' })
          continue
        }
        const { result, version: at } = await runOne(tx, checked, mutation, logger, optimistic, applied)
        applied ||= result.status === 'applied'
        if (at !== null) {
          first ??= at
          version = at
        }
        last = mutation.id
        done.push(result)
        if (result.status === 'rejected') {
          // Told to the device now and after a reconnect, and to its member as `change_refused`.
          await recordRejection(
            tx,
            { clientId: device.clientId, householdId: device.householdId, userId: device.userId },
            mutation,
            {
              status: result.httpStatus ?? 400,
              code: result.code ?? 'REJECTED',
              message: result.message ?? '',
            },
            new Date(),
          )
        }
      }
      if (guessed) {
        const found = await lock.locked()
        if (found.lmid !== record.lmid || !sameRights(found.device, device)) throw new StaleDevice()
      }
      // The last mutation's deferred checks: one that fails fails the next statement or the
      // commit, and the batch runs again the careful way.
      if (optimistic) await executeDeferred(tx, sql`set constraints all immediate`)
      if (last !== record.lmid) {
        await executeDeferred(
          tx,
          db
            .updateTable('sync_clients')
            .set({ lmid: last, last_seen_at: new Date() })
            .where('client_id', '=', device.clientId),
        )
      }
      // The whole push in this one transaction: its rows go to the devices as they are.
      const delta =
        next === 0 && i === mutations.length && first !== null && version !== null
          ? {
              since: first - 1,
              version,
              floor: 0,
              lmids: new Map([[device.clientId, last]]),
              read: await sendVersionsRead(tx, device.householdId, first - 1, version),
            }
          : undefined
      return { done, lmid: last, next: i, delta }
    })
  do {
    // Most batches apply every mutation: run them without a savepoint each, and only when the
    // batch fails (a mutation's error, a deferred check, its commit) run it again the careful
    // way, which turns a refusal into a rejection; a failure of the store fails that run too.
    const outcome = await batch(true).catch(() => batch(false))
    results.push(...outcome.done)
    lmid = outcome.lmid
    next = outcome.next
    if (outcome.delta) {
      const { read, ...delta } = outcome.delta
      committed = { ...delta, changes: await read.changes }
    } else {
      committed = undefined
    }
    // Let other requests in between batches. On the embedded store every call into PGlite
    // resolves as a microtask, so without a turn of the event loop a long push would never let
    // the server read a waiting request off its socket, and REST would wait for the whole push.
    if (next < mutations.length) await new Promise((resolve) => setImmediate(resolve))
  } while (next < mutations.length)
  return { lmid, results, committed, device: checked }
}

/**
 * Runs one mutation in a savepoint, turning a refusal into a rejection rather than an abort.
 * Optimistic: without the savepoint, and any failure of the run fails the batch.
 */
async function runOne(
  tx: Tx,
  device: Device,
  mutation: SyncMutation,
  logger: Logger | undefined,
  optimistic: boolean,
  checkPrevious = false,
): Promise<{ result: MutationResult; version: number | null }> {
  let mutator: ReturnType<typeof deviceMutator>
  try {
    mutator = deviceMutator(mutation.name)
  } catch (error) {
    if (error instanceof EngineError) return refused(mutation.id, error)
    throw error
  }
  const ctx: HouseholdContext = {
    userId: device.userId,
    scopes: device.scopes,
    householdId: device.householdId,
    role: device.role,
    now: mutationTime(mutation.clientTime),
    clientId: device.clientId,
    mutationId: mutation.id,
  }
  let args: unknown
  try {
    authorize(mutator, ctx)
    args = parseArgs(mutator.args, mutation.args)
  } catch (error) {
    if (error instanceof EngineError) return refused(mutation.id, error)
    throw error
  }
  if (optimistic) {
    // The previous mutation's deferred checks run at its end, as REST's would at its commit,
    // before this one starts (the batch's last one's run at the batch's end). Any failure fails
    // the batch, which then runs the careful way.
    if (checkPrevious) {
      await executeDeferred(tx, sql`set constraints all immediate`)
      await executeDeferred(tx, sql`set constraints all deferred`)
    }
    const { version } = await applyMutation(tx, mutator, args, ctx)
    return { result: { id: mutation.id, status: 'applied' }, version }
  }
  await sql`savepoint sync_mutation`.execute(tx)
  try {
    // Each mutation defers its checks to its own end, as if it ran in a transaction of its own...
    await sql`set constraints all deferred`.execute(tx)
    const { version } = await applyMutation(tx, mutator, args, ctx)
    // ...and runs them there, inside the savepoint, rather than at a commit that would fail the batch.
    await sql`set constraints all immediate`.execute(tx)
    await sql`release savepoint sync_mutation`.execute(tx)
    return { result: { id: mutation.id, status: 'applied' }, version }
  } catch (error) {
    await sql`rollback to savepoint sync_mutation`.execute(tx)
    if (error instanceof EngineError) return refused(mutation.id, error)
    logger?.error({ err: error, mutation: mutation.name, clientId: device.clientId }, 'sync mutation failed')
    return refused(
      mutation.id,
      new EngineError(500, 'MUTATION_FAILED', 'The server could not apply this mutation; it was skipped.'),
    )
  }
}

/** How far back a device's clock may date its mutation: about a push's round trip, with room. */
const CLIENT_TIME_WINDOW_MS = 60_000

/**
 * The time a pushed mutation runs at: the device's own (`clientTime`, the time its replica ran it
 * with) when that lies within the last minute by the server's clock, so the rows it writes equal
 * the device's and its echo needs no replay there; the server's otherwise (a queue that waited
 * offline, a clock that is off).
 */
export function mutationTime(clientTime: string | undefined, now = new Date()): Date {
  const at = clientTime ? Date.parse(clientTime) : Number.NaN
  return at <= now.getTime() && at >= now.getTime() - CLIENT_TIME_WINDOW_MS ? new Date(at) : now
}

function refused(id: number, error: EngineError): { result: MutationResult; version: null } {
  return { result: rejected(id, error), version: null }
}

function rejected(id: number, error: EngineError): MutationResult {
  return { id, status: 'rejected', code: error.code, message: error.message, httpStatus: error.status }
}

/** Rejections of a device's mutations from `fromId` on, for a device that may have missed them. */
export async function rejectionsSince(
  store: Store,
  clientId: string,
  fromId: number,
): Promise<MutationResult[]> {
  const rows = await syncDb(store.db)
    .selectFrom('sync_rejections')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('mutation_id', '>=', fromId)
    .orderBy('mutation_id')
    .execute()
  return rows.map((r) => ({
    id: r.mutation_id,
    status: 'rejected',
    code: r.code,
    message: r.message,
    httpStatus: r.status,
  }))
}
