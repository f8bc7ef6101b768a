import type { CompiledQuery, DatabaseConnection, Driver, QueryResult, TransactionSettings } from 'kysely'
import { copyInput } from './copy-rows.ts'
import { answerLater, isDeferred } from './deferred-writes.ts'
import { beginStatement } from './postgres-dialect.ts'
import type { PGliteQueryResult, PreparedPGlite } from './prepared-pglite.ts'

/**
 * A Kysely driver for PGlite's one connection, through `PreparedPGlite`. As on PostgreSQL
 * (`PipelinedPostgresDriver`), a transaction's `begin` and the statements sent with
 * `sendStatement` or `executeDeferred` are not run on their own: they are held and run in the
 * same call into PGlite as the next statement that is awaited (or the commit). PGlite runs in
 * process, so there is no round trip to save, but each call into its WebAssembly backend costs
 * 45-100 µs when its caches are cold, as they are on a device between taps or on a server
 * between requests. A held statement that fails fails that call with its own error.
 */
export class PGliteDriver implements Driver {
  readonly #pg: PreparedPGlite
  #busy = false
  readonly #waiting: ((connection: PGliteConnection) => void)[] = []

  constructor(pg: PreparedPGlite) {
    this.#pg = pg
  }

  async init(): Promise<void> {}

  /** One session, handed to one caller (a transaction or a statement) at a time, each with its own handle. */
  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.#busy) return new Promise((resolve) => this.#waiting.push(resolve))
    this.#busy = true
    return new PGliteConnection(this.#pg, this.#alone)
  }

  /** Whether no other caller waits for the session. */
  readonly #alone = () => this.#waiting.length === 0

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const handle = connection as PGliteConnection
    if (handle.released) return
    handle.released = true
    const next = this.#waiting.shift()
    if (next) next(new PGliteConnection(this.#pg, this.#alone))
    else this.#busy = false
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    ;(connection as PGliteConnection).inTransaction = true
    // A simple statement can always be held: it runs with the transaction's first statement.
    void this.#pg.hold(beginStatement(settings))?.catch(() => {})
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    ;(connection as PGliteConnection).inTransaction = false
    await this.#pg.query('commit', [], { settle: false })
    // Group commit on a durable folder: the next transaction runs while this one's log syncs,
    // and its commit shares the next sync. This one answers only once its own sync is done;
    // with nobody waiting, that sync may run in place (no thread hand-off).
    const alone = this.#alone()
    await this.releaseConnection(connection)
    await this.#pg.settle(alone)
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // Committed and handed on, its log's sync then failed: the session is another caller's now.
    if ((connection as PGliteConnection).released) return
    ;(connection as PGliteConnection).inTransaction = false
    await this.#pg.query('rollback')
  }

  async destroy(): Promise<void> {
    await this.#pg.close()
  }
}

class PGliteConnection implements DatabaseConnection {
  readonly #pg: PreparedPGlite
  readonly #alone: () => boolean
  /** Only inside a transaction is a statement held: its failure must fail something. */
  inTransaction = false
  /** Handed back (after a commit, before its sync), so a second release is a no-op. */
  released = false

  constructor(pg: PreparedPGlite, alone: () => boolean) {
    this.#pg = pg
    this.#alone = alone
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const input = copyInput(compiled)
    if (input) {
      await this.#pg.copyFrom(compiled.sql, input)
      return { rows: [] }
    }
    if (this.inTransaction && isDeferred(compiled)) {
      const held = this.#pg.hold(compiled.sql, compiled.parameters)
      if (held) {
        const answer = held.then((result) => toQueryResult<R>(result))
        // Whoever needs the answer awaits it; a failure nobody awaits still fails the call it rode.
        answer.catch(() => {})
        answerLater(compiled, answer as Promise<QueryResult<unknown>>, () => {
          void this.#pg.flush().catch(() => {})
        })
        return { rows: [] }
      }
    }
    return toQueryResult<R>(await this.#pg.query(compiled.sql, compiled.parameters, { alone: this.#alone }))
  }

  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Streaming queries are not supported on PGlite.')
  }
}

function toQueryResult<R>(result: PGliteQueryResult): QueryResult<R> {
  return {
    rows: result.rows as R[],
    numAffectedRows: result.affectedRows ? BigInt(result.affectedRows) : undefined,
  }
}
