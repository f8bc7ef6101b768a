import type { MutationResult, SyncMutation } from '@hearth/contracts'
import {
  applyMutation,
  authorize,
  EngineError,
  type HouseholdContext,
  parseArgs,
  type Store,
} from '@hearth/engine'
import { syncDb, syncMutators } from '@hearth/engine/sync'
import { sql, type Transaction } from 'kysely'
import type { Logger } from 'pino'
import type { Device } from './devices.ts'

/** What a push did: each mutation's outcome, and the device's lmid after it. */
export interface PushOutcome {
  lmid: number
  results: MutationResult[]
}

type Tx = Transaction<import('@hearth/engine').Database>

/**
 * Runs a device's mutations exactly once and in order. Each one gets its own transaction that
 * locks the device row, skips an id at or below its lmid, authorizes from the device (never from
 * args), runs the mutator inside a savepoint, and advances lmid whether the mutator succeeded or
 * was refused, so one bad mutation never blocks the queue behind it.
 */
export async function pushMutations(
  store: Store,
  device: Device,
  mutations: readonly SyncMutation[],
  logger?: Logger,
): Promise<PushOutcome> {
  const results: MutationResult[] = []
  let lmid = 0
  for (const mutation of mutations) {
    const outcome = await store.db.transaction().execute(async (tx) => {
      const db = syncDb(tx)
      const record = await db
        .selectFrom('sync_clients')
        .select('lmid')
        .where('client_id', '=', device.clientId)
        .forUpdate()
        .executeTakeFirstOrThrow()
      if (mutation.id <= record.lmid) {
        return { result: { id: mutation.id, status: 'skipped' } as MutationResult, lmid: record.lmid }
      }
      const result = await runOne(tx, device, mutation, logger)
      await db
        .updateTable('sync_clients')
        .set({ lmid: mutation.id, last_seen_at: new Date() })
        .where('client_id', '=', device.clientId)
        .execute()
      if (result.status === 'rejected') {
        await db
          .insertInto('sync_rejections')
          .values({
            client_id: device.clientId,
            mutation_id: mutation.id,
            name: mutation.name,
            status: result.httpStatus ?? 400,
            code: result.code ?? 'REJECTED',
            message: result.message ?? '',
          })
          .execute()
      }
      return { result, lmid: mutation.id }
    })
    results.push(outcome.result)
    lmid = outcome.lmid
  }
  if (mutations.length === 0) lmid = await currentLmid(store, device.clientId)
  return { lmid, results }
}

/** Runs one mutation in a savepoint, turning a refusal into a rejection rather than an abort. */
async function runOne(
  tx: Tx,
  device: Device,
  mutation: SyncMutation,
  logger?: Logger,
): Promise<MutationResult> {
  const mutator = syncMutators.get(mutation.name)
  if (!mutator) {
    return rejected(
      mutation.id,
      new EngineError(400, 'UNKNOWN_MUTATOR', `No mutator is named ${mutation.name}.`),
    )
  }
  const ctx: HouseholdContext = {
    userId: device.userId,
    scopes: device.scopes,
    householdId: device.householdId,
    role: device.role,
    now: new Date(),
    clientId: device.clientId,
    mutationId: mutation.id,
  }
  let args: unknown
  try {
    authorize(mutator, ctx)
    args = parseArgs(mutator.args, mutation.args)
  } catch (error) {
    if (error instanceof EngineError) return rejected(mutation.id, error)
    throw error
  }
  await sql`savepoint sync_mutation`.execute(tx)
  try {
    await applyMutation(tx, mutator, args, ctx)
    // Deferred checks (split sums) run now, inside the savepoint, not at a commit that would fail the push.
    await sql`set constraints all immediate`.execute(tx)
    await sql`release savepoint sync_mutation`.execute(tx)
    return { id: mutation.id, status: 'applied' }
  } catch (error) {
    await sql`rollback to savepoint sync_mutation`.execute(tx)
    if (error instanceof EngineError) return rejected(mutation.id, error)
    logger?.error({ err: error, mutation: mutation.name, clientId: device.clientId }, 'sync mutation failed')
    return rejected(
      mutation.id,
      new EngineError(500, 'MUTATION_FAILED', 'The server could not apply this mutation; it was skipped.'),
    )
  }
}

function rejected(id: number, error: EngineError): MutationResult {
  return { id, status: 'rejected', code: error.code, message: error.message, httpStatus: error.status }
}

async function currentLmid(store: Store, clientId: string): Promise<number> {
  const row = await syncDb(store.db)
    .selectFrom('sync_clients')
    .select('lmid')
    .where('client_id', '=', clientId)
    .executeTakeFirst()
  return row?.lmid ?? 0
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
