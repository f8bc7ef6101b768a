import type { Compilable, CompiledQuery, Kysely, QueryResult, RawBuilder, Transaction } from 'kysely'
import type { Database } from '../database.ts'

/** Statements handed to `sendStatement`, and the answer a pipelining store gives each later. */
const deferred = new WeakMap<CompiledQuery, Promise<QueryResult<unknown>> | null>()

/** Whether a statement was handed to `sendStatement` or `executeDeferred`. */
export function isDeferred(compiled: CompiledQuery): boolean {
  return deferred.has(compiled)
}

/** Where a pipelining store leaves the answer to a statement it sent without waiting. */
export function answerLater(compiled: CompiledQuery, answer: Promise<QueryResult<unknown>>): void {
  deferred.set(compiled, answer)
}

/** A statement on its way: its answer, whenever the caller needs it. */
export interface SentStatement<R> {
  answer: Promise<QueryResult<R>>
}

/**
 * Sends a statement inside a transaction without waiting for its answer. A store that pipelines
 * (`PipelinedPostgresDriver`) writes it and moves on: its answer arrives with the next statement
 * that is awaited, and whoever needs the result awaits `answer` then. Elsewhere (PGlite, in
 * process, and outside a transaction) it runs at once. A failure fails the transaction with its
 * own error, at the statement itself or at the next one awaited, the commit at the latest; a
 * caller relies on that, not on where it surfaces.
 */
export async function sendStatement<R>(
  tx: Transaction<Database> | Kysely<Database>,
  query: Compilable<R> | RawBuilder<R>,
): Promise<SentStatement<R>> {
  // A query builder compiles by itself; raw SQL compiles against the handle it runs on.
  const compiled = (query as RawBuilder<R>).compile(tx)
  if (tx.isTransaction) deferred.set(compiled, null)
  const immediate = await tx.executeQuery<R>(compiled)
  const later = deferred.get(compiled) as Promise<QueryResult<R>> | null | undefined
  return { answer: later ?? Promise.resolve(immediate) }
}

/** Runs a write whose result nobody reads, as `sendStatement` does. */
export async function executeDeferred(
  tx: Transaction<Database> | Kysely<Database>,
  query: Compilable | RawBuilder<unknown>,
): Promise<void> {
  await sendStatement(tx, query)
}
