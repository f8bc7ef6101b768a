import type { Compilable, CompiledQuery, Kysely, Transaction } from 'kysely'
import type { Database } from '../database.ts'

const deferred = new WeakSet<CompiledQuery>()

/** Whether a statement was handed to `executeDeferred`. */
export function isDeferred(compiled: CompiledQuery): boolean {
  return deferred.has(compiled)
}

/**
 * Runs a write whose result nobody reads, inside a transaction. A store that pipelines
 * (`PipelinedPostgresDriver`) writes it and moves on, and its answer arrives with the next awaited
 * statement or the commit, where its failure fails the transaction with its own error. Elsewhere
 * (PGlite, in process, and outside a transaction) it runs and fails at once as any statement
 * does. A caller only relies on the failure failing the transaction, not on where it surfaces.
 */
export async function executeDeferred(
  tx: Transaction<Database> | Kysely<Database>,
  query: Compilable,
): Promise<void> {
  const compiled = query.compile()
  if (tx.isTransaction) deferred.add(compiled)
  await tx.executeQuery(compiled)
}
