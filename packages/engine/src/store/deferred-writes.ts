import type { Compilable, CompiledQuery, Kysely, QueryResult, RawBuilder, Transaction } from 'kysely'
import type { Database } from '../database.ts'

/** A statement a store sent or held: its answer, and how to make the store run it now. */
interface Later {
  answer: Promise<QueryResult<unknown>>
  /** Runs the statement now if the store still holds it (PGlite); a no-op once it has run. */
  flush(): void
}

/** Statements handed to `sendStatement`, and what a pipelining store says of each. */
const deferred = new WeakMap<CompiledQuery, Later | null>()

/** Whether a statement was handed to `sendStatement` or `executeDeferred`. */
export function isDeferred(compiled: CompiledQuery): boolean {
  return deferred.has(compiled)
}

/**
 * Where a pipelining store leaves the answer to a statement it sent or held without waiting, and
 * how to run a held one now (for a caller that needs its answer before any other statement).
 */
export function answerLater(
  compiled: CompiledQuery,
  answer: Promise<QueryResult<unknown>>,
  flush: () => void = () => {},
): void {
  deferred.set(compiled, { answer, flush })
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
  const later = deferred.get(compiled)
  if (!later) return { answer: Promise.resolve(immediate) }
  return {
    // Asking for the answer runs a statement still held, so it never waits on a next statement
    // that may not come (a mutator that wrote nothing, say).
    get answer() {
      later.flush()
      return later.answer as Promise<QueryResult<R>>
    },
  }
}

/** Runs a write whose result nobody reads, as `sendStatement` does. */
export async function executeDeferred(
  tx: Transaction<Database> | Kysely<Database>,
  query: Compilable | RawBuilder<unknown>,
): Promise<void> {
  await sendStatement(tx, query)
}
