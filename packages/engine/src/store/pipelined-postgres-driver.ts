import type { CompiledQuery, DatabaseConnection, Driver, QueryResult, TransactionSettings } from 'kysely'
import type pg from 'pg'
import { answerLater, isDeferred } from './deferred-writes.ts'
import { beginStatement } from './postgres-dialect.ts'

/**
 * A Kysely driver for `pg` clients in pipeline mode, so a transaction pays fewer round trips:
 * `begin` is written without waiting for its answer and travels with the first statement, and a
 * statement sent with `sendStatement` (the household clock, whose version is read later) or
 * `executeDeferred` (a write whose result nobody reads: an event for the outbox, an idempotent
 * answer) is written and left in flight, answered with the next awaited statement or the
 * `commit`. Every other statement is awaited as Kysely's own driver awaits it.
 *
 * A statement in flight that fails aborts the transaction, so the statements behind it fail with
 * "current transaction is aborted" and a `commit` turns into a rollback without an error. The
 * connection answers the first failure instead, whichever statement is awaited next (or the
 * commit), so a caller sees the cause exactly as if every statement had been awaited.
 */
export class PipelinedPostgresDriver implements Driver {
  readonly #pool: pg.Pool
  readonly #connections = new WeakMap<pg.PoolClient, PipelinedConnection>()

  constructor(pool: pg.Pool) {
    this.#pool = pool
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const client = await this.#pool.connect()
    let connection = this.#connections.get(client)
    if (!connection) {
      connection = new PipelinedConnection(client)
      this.#connections.set(client, connection)
    }
    return connection
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    ;(connection as PipelinedConnection).inTransaction = true
    void (connection as PipelinedConnection).send(beginStatement(settings)).catch(() => {})
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PipelinedConnection).finish('commit')
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PipelinedConnection).finish('rollback')
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    ;(connection as PipelinedConnection).release()
  }

  async destroy(): Promise<void> {
    await this.#pool.end()
  }
}

/** One pooled client and the statements it has written whose answers nobody awaited yet. */
class PipelinedConnection implements DatabaseConnection {
  readonly #client: pg.PoolClient
  #inFlight: Promise<unknown>[] = []
  /** Only inside a transaction is a write left in flight: its failure must fail something. */
  inTransaction = false
  /** The first error a statement in flight answered, kept until the next awaited statement. */
  #failure: unknown = null

  constructor(client: pg.PoolClient) {
    this.#client = client
  }

  /** Writes a statement without waiting for its answer, and answers the answer's promise. */
  send(text: string, values?: readonly unknown[]): Promise<pg.QueryResult> {
    const answer = this.#client.query(text, values as unknown[] | undefined)
    this.#inFlight.push(
      answer.catch((error: unknown) => {
        this.#failure ??= error
      }),
    )
    return answer
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    if (this.inTransaction && isDeferred(compiled)) {
      const answer = this.send(compiled.sql, compiled.parameters).then(toQueryResult)
      // Whoever needs the answer awaits it; a failure nobody awaits still fails the transaction.
      answer.catch(() => {})
      answerLater(compiled, answer)
      return { rows: [] }
    }
    try {
      const result = await this.#client.query(compiled.sql, [...compiled.parameters])
      await this.#settled()
      return toQueryResult<R>(result)
    } catch (error) {
      await this.#drain()
      throw this.#takeFailure() ?? error
    }
  }

  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Streaming queries are not supported on a pipelined PostgreSQL connection.')
  }

  /** Ends the transaction: `commit` (or `rollback`) behind what is in flight, and their answers. */
  async finish(text: 'commit' | 'rollback'): Promise<void> {
    this.inTransaction = false
    const ended = this.#client.query(text)
    await this.#drain()
    const failure = this.#takeFailure()
    try {
      await ended
    } catch (error) {
      throw failure ?? error
    }
    // A commit behind a failed statement rolled back: the failure is the answer.
    if (failure && text === 'commit') throw failure
  }

  release(): void {
    this.inTransaction = false
    this.#inFlight = []
    this.#failure = null
    this.#client.release()
  }

  /**
   * A statement awaited after others in flight succeeded. Answers come in order, so they have all
   * been answered (draining lets their handlers run, which a prepared statement's extra promise
   * step can leave behind this one's), and one that failed was rolled back since (to a
   * savepoint), or this one would have failed too.
   */
  async #settled(): Promise<void> {
    if (this.#inFlight.length > 0) await this.#drain()
    this.#failure = null
  }

  async #drain(): Promise<void> {
    const inFlight = this.#inFlight
    this.#inFlight = []
    await Promise.all(inFlight)
  }

  #takeFailure(): unknown {
    const failure = this.#failure
    this.#failure = null
    return failure
  }
}

function toQueryResult<R>(result: pg.QueryResult): QueryResult<R> {
  const { command, rowCount, rows } = result
  const counted = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE'
  return {
    numAffectedRows: counted ? BigInt(rowCount ?? 0) : undefined,
    rows: (rows ?? []) as R[],
  }
}
