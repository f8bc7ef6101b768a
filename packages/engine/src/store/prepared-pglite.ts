import { type PGlite, types } from '@electric-sql/pglite'
import { type BackendMessage, type Field, readBackendMessages } from './backend-messages.ts'
import { isPreparable, isStaleStatement, MAX_PREPARED, worthPreparing } from './prepared-statements.ts'

/** A statement waiting to ride the next call into PGlite. */
interface Held {
  bytes: Uint8Array
  fields: Field[] | null
  resolve(result: PGliteQueryResult): void
  reject(error: unknown): void
}

interface Prepared {
  name: string
  paramTypes: number[]
  fields: Field[]
}

/** What the Kysely dialect reads from a query. */
export interface PGliteQueryResult {
  rows: Record<string, unknown>[]
  affectedRows?: number
}

/**
 * PGlite's `query()` with each statement prepared once, as the PostgreSQL store's
 * `PreparedClient` does. PGlite parses, describes, binds, describes and executes a statement in
 * five calls into its WebAssembly backend and plans it every time; here a prepared statement
 * runs in one call (bind, execute, sync) and PostgreSQL may keep its plan. A simple statement
 * took about a quarter of the time (0.1 ms to 0.025 ms in memory). Kysely's PGlite dialect
 * drives it in place of the PGlite instance.
 *
 * It also writes a browser's IndexedDB file system once a transaction commits rather than
 * after every statement inside it (PGlite's `query()` only knows about transactions opened
 * with its own `transaction()`).
 */
export class PreparedPGlite {
  readonly #pg: PGlite
  readonly #prepared = new Map<string, Prepared>()
  /** Statements held for the next call into PGlite (`hold`), oldest first. */
  #held: Held[] = []
  /** The first held statement that failed, until the statement after it answers. */
  #heldFailure: unknown = null
  #counter = 0
  /** Names unique to this wrapper, should two ever wrap one PGlite (names live in its session). */
  readonly #prefix = `h${Math.random().toString(36).slice(2, 8)}_`
  /** `listen`'s callbacks by channel; notifications come back in the answers this reads. */
  readonly #listeners = new Map<string, Set<(payload: string) => void>>()

  /** Waits until the write-ahead log written so far is on stable storage; absent, nothing waits. */
  readonly #settle: ((alone?: boolean) => Promise<void>) | null

  constructor(pg: PGlite, settle?: (alone?: boolean) => Promise<void>) {
    this.#pg = pg
    this.#settle = settle ?? null
  }

  /**
   * Runs a statement. One that leaves no transaction open (a commit, a statement on its own)
   * answers only once its write-ahead log is on stable storage, unless `settle: false` (the
   * driver's commit, which hands the connection on first and then calls `settle`). `alone`
   * tells, once the statement has run, whether nobody else waits for the store (see `settle`).
   */
  async query(
    text: string,
    values: readonly unknown[] = [],
    options: { settle?: boolean; alone?: () => boolean } = {},
  ): Promise<PGliteQueryResult> {
    await this.#pg.waitReady
    let outside = false
    const result = await this.#pg._runExclusiveQuery(async () => {
      try {
        const result =
          values.length === 0 && !isPreparable(text)
            ? await this.#simple(text)
            : await this.#extended(text, values)
        // A held statement failed and this one still succeeded: a rollback (to a savepoint)
        // dealt with it, or this was the commit, which rolled back instead, so fails with it.
        const failure = this.#takeHeldFailure()
        if (failure && /^\s*commit\b/i.test(text)) throw failure
        return result
      } catch (error) {
        if (error && typeof error === 'object') Object.assign(error, { query: text, params: values })
        throw error
      } finally {
        // Durable at commit (or after a statement outside a transaction), not mid-transaction.
        outside = !this.#pg.isInTransaction()
        if (outside) await this.#pg.syncToFs()
      }
    })
    // Outside the exclusive section, so the next statement runs while this one's log syncs.
    if (outside && options.settle !== false) await this.settle(options.alone?.())
    return result
  }

  /**
   * Answers once every write-ahead log write so far is on stable storage (a durable folder).
   * `alone`: nobody else waits for the store, so a sync may run in place rather than on Node's
   * thread pool (`WalSync.settle`).
   */
  async settle(alone = false): Promise<void> {
    await this.#settle?.(alone)
  }

  /**
   * Holds a statement to run in the same call into PGlite as the next one that is run (inside a
   * transaction: `begin`, a statement whose answer is read later, a write nobody reads). Answers
   * its result once that call is made, or null when it cannot be held (a statement with values
   * not prepared yet, which the caller then runs as usual). A held statement hears its own
   * outcome; one that fails also fails the statement after it with its own error (see `#exec`).
   */
  hold(text: string, values: readonly unknown[] = []): Promise<PGliteQueryResult> | null {
    const simple = values.length === 0 && !isPreparable(text)
    const statement = simple ? null : this.#prepared.get(text)
    if (!simple && !statement) return null
    return new Promise<PGliteQueryResult>((resolve, reject) => {
      this.#held.push({
        bytes: statement
          ? concat([bind(statement.name, this.#params(statement, values)), EXECUTE, SYNC])
          : message('Q', [cstring(text)]),
        fields: statement?.fields ?? null,
        resolve,
        reject,
      })
    })
  }

  /**
   * Runs `copy … from '/dev/blob'` with `blob` as its input (PGlite's own `query` feeds it),
   * after the held statements (a transaction's `begin`, say). A held statement that failed fails
   * this with its own error, as it would fail any statement behind it.
   */
  async copyFrom(text: string, blob: Blob): Promise<void> {
    await this.flush()
    const failure = this.#takeHeldFailure()
    if (failure) throw failure
    try {
      await this.#pg.query(text, [], { blob })
    } catch (error) {
      if (error && typeof error === 'object') Object.assign(error, { query: text })
      throw error
    }
    if (!this.#pg.isInTransaction()) await this.settle()
  }

  /** Runs the held statements now, in a call of their own; their promises hear how they went. */
  async flush(): Promise<void> {
    if (this.#held.length === 0) return
    let outside = false
    await this.#pg._runExclusiveQuery(async () => {
      // Another statement may have taken them along meanwhile.
      if (this.#held.length === 0) return
      try {
        await this.#exec(new Uint8Array(0))
      } finally {
        outside = !this.#pg.isInTransaction()
        if (outside) await this.#pg.syncToFs()
      }
    })
    if (outside) await this.settle()
  }

  async close(): Promise<void> {
    await this.#pg.close()
  }

  /**
   * Calls `onPayload` with each notification on `channel` (exactly as `pg_notify` names it);
   * answers the function that stops. In place of PGlite's own `listen`, which hears only the
   * answers PGlite's own reader reads.
   */
  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    const name = `"${channel.replaceAll('"', '""')}"`
    let listeners = this.#listeners.get(channel)
    if (!listeners) {
      listeners = new Set()
      this.#listeners.set(channel, listeners)
      await this.query(`listen ${name}`)
    }
    listeners.add(onPayload)
    return async () => {
      if (!listeners.delete(onPayload) || listeners.size > 0) return
      this.#listeners.delete(channel)
      await this.query(`unlisten ${name}`)
    }
  }

  /** A statement without values, as PostgreSQL's simple query protocol runs it. */
  async #simple(text: string): Promise<PGliteQueryResult> {
    const messages = await this.#exec(message('Q', [cstring(text)]))
    return resultOf(messages, null, this.#pg.parsers)
  }

  async #extended(text: string, values: readonly unknown[]): Promise<PGliteQueryResult> {
    try {
      return await this.#bound(text, values)
    } catch (error) {
      // A kept statement that no longer fits its tables (DDL since it was prepared: "cached plan
      // must not change result type") or that is gone (DEALLOCATE) is prepared afresh; outside a
      // transaction the statement runs again at once, inside one the transaction has failed.
      const kept = this.#prepared.get(text)
      if (!kept || !isStaleStatement(error)) throw error
      this.#prepared.delete(text)
      await this.#exec(concat([close(kept.name), SYNC])).catch(() => {})
      if (this.#pg.isInTransaction()) throw error
      return this.#bound(text, values)
    }
  }

  async #bound(text: string, values: readonly unknown[]): Promise<PGliteQueryResult> {
    const statement = this.#prepared.get(text) ?? (await this.#prepare(text, values.length))
    const messages = await this.#exec(
      concat([bind(statement.name, this.#params(statement, values)), EXECUTE, SYNC]),
    )
    return resultOf(messages, statement.fields, this.#pg.parsers)
  }

  #params(statement: Prepared, values: readonly unknown[]): (string | null)[] {
    const serializers = this.#pg.serializers
    return values.map((value, i) => {
      if (value === null || value === undefined) return null
      const serialize = serializers[statement.paramTypes[i]!]
      return serialize ? (serialize(value) as string) : String(value)
    })
  }

  /**
   * Parses and describes a statement: by name when it is worth keeping (then cached), else as
   * the unnamed statement, which the next parse replaces.
   */
  async #prepare(text: string, valueCount: number): Promise<Prepared> {
    const keep = worthPreparing(text, valueCount) && this.#prepared.size < MAX_PREPARED
    const name = keep ? `${this.#prefix}${this.#counter++}` : ''
    const messages = await this.#exec(concat([parse(name, text), describeStatement(name), SYNC]))
    let paramTypes: number[] = []
    let fields: Field[] = []
    for (const m of messages) {
      if (m.name === 'parameterDescription') paramTypes = m.dataTypeIDs
      if (m.name === 'rowDescription') fields = m.fields
    }
    const statement = { name, paramTypes, fields }
    if (keep) this.#prepared.set(text, statement)
    return statement
  }

  /**
   * One call into PGlite: the held statements first, then these messages. Each held statement
   * hears its own answer or error. When one failed, the statements behind it in its transaction
   * fail with "current transaction is aborted": these messages then answer the first failure
   * instead, and a commit behind it (which PostgreSQL turns into a rollback) fails with it too
   * (see `query`), as on PostgreSQL's pipelined connection.
   */
  async #exec(bytes: Uint8Array): Promise<BackendMessage[]> {
    const held = this.#held
    this.#held = []
    let messages: BackendMessage[]
    try {
      messages = await this.#call(held.length === 0 ? bytes : concat([...held.map((h) => h.bytes), bytes]))
    } catch (error) {
      for (const h of held) h.reject(error)
      throw error
    }
    // Each statement's messages end with its ReadyForQuery.
    let start = 0
    for (const h of held) {
      let end = start
      while (end < messages.length && messages[end]!.name !== 'readyForQuery') end++
      const group = messages.slice(start, end + 1)
      const error = group.find((m) => m.name === 'error')
      if (error) {
        this.#heldFailure ??= error
        h.reject(error)
      } else {
        h.resolve(resultOf(group, h.fields, this.#pg.parsers))
      }
      start = end + 1
    }
    const own = messages.slice(start)
    const error = own.find((m) => m.name === 'error')
    if (error) throw this.#takeHeldFailure() ?? error
    return own
  }

  /** One call into PGlite's backend; its answer read here (see `readBackendMessages`). */
  async #call(bytes: Uint8Array): Promise<BackendMessage[]> {
    const chunks: Uint8Array[] = []
    await this.#pg.execProtocolRawStream(bytes, {
      syncToFs: false,
      // A view of PGlite's memory, valid only during the call.
      onRawData: (chunk) => chunks.push(chunk.slice()),
    })
    const messages = readBackendMessages(chunks.length === 1 ? chunks[0]! : concat(chunks))
    for (const m of messages) {
      if (m.name !== 'notification') continue
      for (const listener of this.#listeners.get(m.channel) ?? []) queueMicrotask(() => listener(m.payload))
    }
    return messages
  }

  #takeHeldFailure(): unknown {
    const failure = this.#heldFailure
    this.#heldFailure = null
    return failure
  }
}

/** Rows and affected-row count from a statement's messages, as PGlite's `query()` gives them. */
function resultOf(
  messages: readonly BackendMessage[],
  described: Field[] | null,
  parsers: PGlite['parsers'],
): PGliteQueryResult {
  let fields = described ?? []
  let rows: Record<string, unknown>[] = []
  let affectedRows = 0
  for (const m of messages) {
    if (m.name === 'rowDescription') {
      fields = m.fields
      rows = []
    } else if (m.name === 'dataRow') {
      const values = m.fields
      const row: Record<string, unknown> = {}
      for (let i = 0; i < fields.length; i++) {
        const field = fields[i]!
        row[field.name] = types.parseType(values[i] ?? null, field.dataTypeID, parsers)
      }
      rows.push(row)
    } else if (m.name === 'commandComplete') {
      const words = m.text.split(' ')
      const count = Number.parseInt(words.at(-1)!, 10)
      if (/^(INSERT|UPDATE|DELETE|MERGE|COPY)$/.test(words[0]!) && !Number.isNaN(count)) affectedRows += count
    }
  }
  return { rows, affectedRows }
}

// The frontend messages of PostgreSQL's wire protocol that this client sends.

const encoder = new TextEncoder()

function message(code: string, parts: readonly Uint8Array[]): Uint8Array {
  const length = 4 + parts.reduce((sum, p) => sum + p.length, 0)
  const out = new Uint8Array(1 + length)
  out[0] = code.charCodeAt(0)
  new DataView(out.buffer).setInt32(1, length)
  let offset = 5
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}

function concat(messages: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(messages.reduce((sum, m) => sum + m.length, 0))
  let offset = 0
  for (const m of messages) {
    out.set(m, offset)
    offset += m.length
  }
  return out
}

function cstring(text: string): Uint8Array {
  return encoder.encode(`${text}\0`)
}

function int16(n: number): Uint8Array {
  const out = new Uint8Array(2)
  new DataView(out.buffer).setInt16(0, n)
  return out
}

function int32(n: number): Uint8Array {
  const out = new Uint8Array(4)
  new DataView(out.buffer).setInt32(0, n)
  return out
}

/** Parse: the statement's text, its parameter types left to the server. */
function parse(name: string, text: string): Uint8Array {
  return message('P', [cstring(name), cstring(text), int16(0)])
}

function describeStatement(name: string): Uint8Array {
  return message('D', [encoder.encode('S'), cstring(name)])
}

/** Bind the unnamed portal to a statement, every value and result in text format. */
function bind(statement: string, values: readonly (string | null)[]): Uint8Array {
  const parts = [cstring(''), cstring(statement), int16(0), int16(values.length)]
  for (const value of values) {
    if (value === null) {
      parts.push(int32(-1))
    } else {
      const bytes = encoder.encode(value)
      parts.push(int32(bytes.length), bytes)
    }
  }
  parts.push(int16(0))
  return message('B', parts)
}

function close(name: string): Uint8Array {
  return message('C', [encoder.encode('S'), cstring(name)])
}

const EXECUTE = message('E', [cstring(''), int32(0)])
const SYNC = message('S', [])
