import { sql, type Transaction } from 'kysely'
import type { RowChange } from '../changes/changes.ts'
import type { Database } from '../database.ts'

/** A row change as a replica applies it; the version is not needed to apply it. */
export type RowChangeInput = Pick<RowChange, 'table' | 'id' | 'op' | 'row'>

/**
 * Runs `fn` with the session in replica mode: the server's rows land as they are, without
 * re-running foreign keys, constraint triggers, or the log and undo trigger. Device only: the
 * server is the authority that already checked them.
 */
export async function asReplica<T>(tx: Transaction<Database>, fn: () => Promise<T>): Promise<T> {
  await sql`set local session_replication_role = replica`.execute(tx)
  try {
    return await fn()
  } finally {
    await sql`set local session_replication_role = origin`.execute(tx)
  }
}

/** Applies row changes in order: upserts replace the whole row, deletes remove it by key. */
export async function applyChanges(
  tx: Transaction<Database>,
  householdId: string,
  changes: readonly RowChangeInput[],
): Promise<void> {
  if (changes.length === 0) return
  const wire = changes.map((c) => ({ table: c.table, id: c.id, op: c.op, row: c.row }))
  await sql`select hearth_sync_apply(${householdId}, ${JSON.stringify(wire)}::jsonb)`.execute(tx)
}

/** Upserts full row images into one table. */
export async function loadRows(
  tx: Transaction<Database>,
  table: string,
  rows: readonly Record<string, unknown>[],
): Promise<void> {
  if (rows.length === 0) return
  await sql`select hearth_sync_upsert(${table}, ${JSON.stringify(rows)}::jsonb)`.execute(tx)
}

/** Deletes every replicated row of a household, before a snapshot replaces them. */
export async function clearHousehold(tx: Transaction<Database>, householdId: string): Promise<void> {
  await sql`select hearth_sync_clear(${householdId})`.execute(tx)
}

/** Restores every row pending mutations wrote to its image from before them; returns how many. */
export async function undoPending(tx: Transaction<Database>): Promise<number> {
  const { rows } = await sql<{ n: number }>`select hearth_sync_undo() as n`.execute(tx)
  return rows[0]?.n ?? 0
}

/**
 * Marks the rest of the transaction (or until the next call) as the work of pending mutation
 * `mutationId`: the log trigger records undo images for it instead of change-log rows.
 */
export async function recordUndoFor(tx: Transaction<Database>, mutationId: number | null): Promise<void> {
  await sql`select set_config('hearth.undo', ${mutationId === null ? '' : String(mutationId)}, true)`.execute(
    tx,
  )
}
