import { createHash } from 'node:crypto'
import pg from 'pg'
import { isStaleStatement, MAX_PREPARED, worthPreparing } from './prepared-statements.ts'

/**
 * A `pg` client that prepares each parameterized statement once per connection, by a name
 * derived from its text, as postgres.js does by default. PostgreSQL then skips parsing and
 * (after a few runs) planning: about 0.45 ms of a 2.7 ms REST write here, the auth join most
 * of all. Statements that vary with their input are left alone (prepared-statements.ts).
 */
export class PreparedClient extends pg.Client {
  #prepared = new Set<string>()
  /** Bumped when a kept statement went stale, so every statement is prepared afresh. */
  #generation = 0
  /** Whether this tick's writes are being held (`#writeWithTick`). */
  #corked = false

  constructor(config?: string | pg.ClientConfig) {
    super(config)
    const query = super.query.bind(this) as (...args: unknown[]) => unknown
    this.query = ((config: unknown, values?: unknown, callback?: unknown) => {
      this.#writeWithTick()
      const text = config as string
      const name =
        typeof config === 'string' && Array.isArray(values) && worthPreparing(text, values.length)
          ? this.#nameFor(text)
          : null
      if (!name) return query(config, values, callback)
      if (callback !== undefined) return query({ name, text, values }, callback)
      const run = (named: string) => {
        this.#prepared.add(named)
        return query({ name: named, text, values }) as Promise<unknown>
      }
      return run(name).catch((error: unknown) => {
        // A kept statement no longer fits its table (DDL since it was prepared, such as a
        // migration by another server: "cached plan must not change result type"): prepare
        // everything afresh. Outside a transaction the statement runs again at once; inside
        // one the transaction has failed, and its caller's retry will find fresh statements.
        if (!isStaleStatement(error)) throw error
        this.#generation++
        this.#prepared.clear()
        if (this.getTransactionStatus() !== 'I') throw error
        const fresh = this.#nameFor(text)
        return fresh ? run(fresh) : query(text, values)
      })
    }) as pg.Client['query']
  }

  /**
   * Holds the socket's writes until the statements sent in this tick are all written, then
   * writes them in one `writev`. `pg` writes each statement as soon as it is sent (pipeline
   * mode), one system call each: a transaction's `begin`, clock and first statement, or its
   * held writes and `commit`, went out as three writes, and PostgreSQL woke for each.
   * Nothing waits for I/O: the writes leave at the next `process.nextTick`, which runs after the
   * promise jobs queued so far when the first statement was sent from one (as a transaction's
   * statements are, each after an `await`), and before the event loop polls either way.
   */
  #writeWithTick(): void {
    const stream = (this as unknown as { connection?: { stream?: Corkable } }).connection?.stream
    if (this.#corked || !stream?.cork) return
    this.#corked = true
    stream.cork()
    process.nextTick(() => {
      this.#corked = false
      stream.uncork()
    })
  }

  /** The statement's name when it is (or may now be) prepared on this connection, else null. */
  #nameFor(text: string): string | null {
    const name = statementName(text, this.#generation)
    return this.#prepared.size < MAX_PREPARED || this.#prepared.has(name) ? name : null
  }
}

/** Each statement text's digest, kept: a REST write sends a dozen statements, each hashed afresh before. */
const digests = new Map<string, string>()

/** The same text gets the same name on every connection. */
function statementName(text: string, generation: number): string {
  let digest = digests.get(text)
  if (digest === undefined) {
    // The texts a server sends are few (its statements), but a kept map must not grow without end.
    if (digests.size >= MAX_PREPARED * 4) digests.clear()
    digest = createHash('sha1').update(text).digest('base64url').slice(0, 20)
    digests.set(text, digest)
  }
  return `h${generation}_${digest}`
}

/** The part of a socket `#writeWithTick` uses. */
interface Corkable {
  cork?(): void
  uncork(): void
}
