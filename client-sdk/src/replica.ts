import {
  applyMutation,
  authorize,
  type Database,
  EngineError,
  executeDeferred,
  type HouseholdContext,
  migrateToLatest,
  newUlid,
  parseArgs,
  type Role,
  SCOPES,
  type Scope,
  type Store,
} from '@hearth/engine'
import {
  clearHousehold,
  DEVICE_DIGEST_PAGE_ROWS,
  deviceMutator,
  type HouseholdDigest,
  pauseDerivedSums,
  type RowChangeInput,
  RowWriter,
  readDigest,
  resumeDerivedSums,
  syncDb,
  type TableRows,
} from '@hearth/engine/sync'
import { sql, type Transaction } from 'kysely'
import { Mutex } from './emitter.ts'
import type { MutationQueue, QueueRecord } from './queue/mutation-queue.ts'

/** A local mutation the server has not confirmed yet. */
export interface PendingMutation {
  id: number
  name: string
  args: unknown
  /** When the device ran it: the `now` every local replay of it uses. */
  at: string
}

/** Who this replica is and how far it has synced. */
export interface ReplicaIdentity {
  clientId: string
  householdId: string
  userId: string | null
  role: Role | null
  scopes: Scope[]
  /** The server version the synced rows are at; null before the first snapshot. */
  version: number | null
  lmid: number
}

/** What the server sent, ready to apply: a delta, or a snapshot that replaces every row. */
export type Incoming =
  | {
      kind: 'delta'
      /** The version the changes start from: at or before the replica's own (no gap). */
      fromVersion: number
      changes: RowChangeInput[]
      version: number
      lmid: number
    }
  | {
      kind: 'snapshot'
      /** The pages, as they arrive: a rebase applies each while the next is on its way. */
      tables: Iterable<TableRows> | AsyncIterable<TableRows>
      version: number
      lmid: number
    }

/** What a rebase did. */
export interface RebaseOutcome {
  /** Pending mutations the server has processed (applied or rejected), now dropped. */
  confirmed: number[]
  /** Pending mutations still waiting, replayed on top of the server's rows. */
  pending: number
  /** The tables whose rows may have changed; null for every table (a snapshot). */
  tables: Set<string> | null
}

/** A snapshot page this large drops its table's secondary indexes until the load is done. */
const BULK_PAGE_ROWS = 1000

/**
 * How many mutation records the queue file may hold before it is rewritten without the confirmed
 * ones: while some are pending (the rewrite copies them), and when none are (it writes a header).
 * Rewriting costs two fsyncs, so an online device does it now and then, not after every echo.
 */
const COMPACT_AFTER = 2000
const COMPACT_IDLE_AFTER = 200

/**
 * The session's replication role, set for the session rather than the transaction, by whatever
 * writes next: the server's rows land in replica mode (no foreign keys, constraint triggers, log
 * or undo trigger), local mutations and replays run in origin mode. PostgreSQL empties its plan
 * cache whenever the role changes, so a `set local` per rebase (twice: in, and out at commit)
 * made every rebase and the statements after it plan afresh (a one-row rebase 15 ms after the
 * last, measured alone on 2026-11-25: 1.6 ms, against 1.3 ms without the switch). Set for the session, a device that only receives stays in
 * replica mode and one that only writes in origin mode; setting the role it has costs nothing.
 * A transaction that rolls back takes its setting with it, and the next one sets its own.
 */
const asServerRows = sql`set session_replication_role = replica`
const asLocalMutation = sql`set session_replication_role = origin`

/**
 * A delta of at most this many rows lands in origin mode (`asServerRowsInOrigin`) when the
 * session is in origin mode already (it wrote last), so a device that both receives and writes
 * keeps one role, and its plans. A device that only receives stays in replica mode, where a
 * row costs less (no foreign-key check, no trigger), and a larger delta (a catch-up) lands there
 * too.
 */
const ORIGIN_DELTA_ROWS = 200

/**
 * After this many deltas in a row that origin mode refused, a replica applies every delta the
 * replica way until it reopens: a key whose read scopes leave references dangling (transactions
 * without `read:accounts`, say) would otherwise apply each delta twice.
 */
const ORIGIN_REFUSALS_KEPT = 3

/**
 * The server's rows in origin mode: the triggers that derive or check rows skip them by their
 * WHEN clause on `hearth.server_rows` (migration 0019), the change-log trigger has nothing to
 * log, and the deferrable foreign keys wait for `serverRowsDone`, since a delta's final rows
 * land table by table, not in the server's order.
 */
const asServerRowsInOrigin = [
  asLocalMutation,
  sql`select set_config('hearth.server_rows', 'on', true)`,
  sql`set constraints all deferred`,
]
/** The server's rows are in: their foreign keys are checked now, and replays derive rows again. */
const serverRowsDone = [
  sql`set constraints all immediate`,
  sql`select set_config('hearth.server_rows', '', true)`,
]

/** Mutation ids reserved by one durable queue record (see `reserveThrough`). */
const ID_BLOCK = 100

/** Who hears of a local mutation as it runs: the push, and how the replica took it. */
export interface MutateHooks {
  /** The mutation is checked and numbered: push it now, while the replica applies it. */
  push?(mutation: PendingMutation): void
  /**
   * The replica committed the mutation: what reads it now see, and the tables it changed (null
   * when not tracked). In a browser this comes before the queue record is durable (see `mutate`).
   */
  applied?(mutation: PendingMutation, tables: Set<string> | null): void
  /** The local call is over: the replica applied the mutation, or refused it (the caller's error). */
  settled?(mutation: PendingMutation, refused: boolean): void
}

/**
 * The device's local database: the engine's schema on PGlite, the server's rows, and pending
 * mutations applied on top. Every write (a local mutation, a rebase) runs one at a time.
 */
export class Replica {
  identity: ReplicaIdentity
  /** How many mutations are pending now. */
  pendingCount = 0
  /** How many times a rebase replayed a pending mutation, since this replica opened. */
  replays = 0
  /** Writes (local mutations, rebases) begun since this replica opened; see `digest`. */
  private writes = 0
  /** Whether `mutate` and `rebase` should say which tables they changed (someone watches). */
  trackTables = false
  private nextId = 1
  /** Deltas origin mode refused in a row: at `ORIGIN_REFUSALS_KEPT`, every delta goes the replica way. */
  private originRefusals = 0
  /** The replication role the session was left in by the last transaction that set one. */
  private sessionRole: 'origin' | 'replica' | null = null
  /** The role the transaction under way set last, if any. */
  private roleSet: 'origin' | 'replica' | null = null
  /**
   * How the last rebase went: nothing to do, the echo of this device's own mutations, the server's
   * rows applied with nothing pending, or applied under pending mutations undone and replayed.
   */
  private rebaseWay: 'untouched' | 'echo' | 'apply' | 'replay' = 'apply'
  /** The highest id a restart may not issue again: reserved durably in the queue. */
  private reservedThrough = 0
  private queueRecords = 0
  private readonly mutex = new Mutex()
  private readonly writer: RowWriter

  private constructor(
    readonly store: Store,
    private readonly queue: MutationQueue,
    identity: ReplicaIdentity,
  ) {
    this.identity = identity
    // A snapshot loads with COPY where the store has PGlite's blob input: every device today.
    this.writer = new RowWriter({ copy: store.kind === 'pglite' })
  }

  /** Migrates the store, then reconciles it with the queue: see `reconcile`. */
  static async open(store: Store, queue: MutationQueue, householdId: string): Promise<Replica> {
    await migrateToLatest(store.db)
    // This session is a replica: nothing here listens for the clock's announcements.
    await sql`select set_config('hearth.replica', 'on', false)`.execute(store.db)
    const records = await queue.read()
    const header = records.find((r) => r.type === 'client')
    if (header && header.householdId !== householdId) {
      throw new Error(`This store's queue belongs to household ${header.householdId}, not ${householdId}.`)
    }
    const db = syncDb(store.db)
    let state = await db
      .selectFrom('device_state')
      .selectAll()
      .where('household_id', '=', householdId)
      .executeTakeFirst()
    if (state && header && state.client_id !== header.clientId) {
      throw new Error(
        'The store and its queue belong to different devices; refusing to guess which is right.',
      )
    }
    const clientId = header?.clientId ?? state?.client_id ?? newUlid()
    if (!header) await queue.append({ type: 'client', clientId, householdId })
    if (!state) {
      state = await db
        .insertInto('device_state')
        .values({ household_id: householdId, client_id: clientId, scopes: [], version: null, lmid: 0 })
        .returningAll()
        .executeTakeFirstOrThrow()
    }
    const replica = new Replica(store, queue, {
      clientId,
      householdId,
      userId: state.user_id,
      role: state.role as Role | null,
      scopes: state.scopes as Scope[],
      version: state.version,
      lmid: state.lmid,
    })
    const floor = records.reduce(
      (highest, r) =>
        Math.max(highest, r.type === 'client' ? (r.floor ?? 0) : r.type === 'reserve' ? r.through : 0),
      0,
    )
    await replica.reconcile(records, floor)
    return replica
  }

  /** The context local mutators and queries run with; full rights until the server names them. */
  context(now: Date, mutationId?: number): HouseholdContext {
    const known = this.identity.userId !== null
    return {
      userId: this.identity.userId ?? '',
      scopes: known ? this.identity.scopes : [...SCOPES],
      householdId: this.identity.householdId,
      role: this.identity.role ?? 'owner',
      now,
      clientId: this.identity.clientId,
      mutationId,
    }
  }

  /**
   * Runs a mutation locally: checks its arguments and scope, appends it to the durable queue and
   * hands it to `hooks.push` (so the push leaves while the replica works), applies it to the
   * replica meanwhile, and records it as pending in the same transaction. The call answers once
   * the queue record is durable, and the replica never stores a mutation the queue lacks:
   * - a store that holds its writes (a browser replica: `holdWrites`) commits without waiting, so
   *   `hooks.applied` (the app's live queries) runs while the record is still being written, and
   *   the store writes the commit only after the record;
   * - any other store commits only once the record is durable.
   * If the replica refuses it, the queue learns the id is dropped and the caller gets the error;
   * the server, which has it already, decides on its own state. If the record cannot be written
   * after a browser replica committed, the mutation stays pending (it is sent, and kept until
   * the server answers it) and the caller gets the queue's error. `hooks.settled` hears how the
   * call ended.
   */
  mutate(
    name: string,
    rawArgs: unknown,
    hooks: MutateHooks = {},
  ): Promise<{ mutation: PendingMutation; result: unknown; tables: Set<string> | null }> {
    return this.mutex.run(async () => {
      this.writes++
      const mutator = deviceMutator(name)
      if (this.identity.version === null) {
        throw new EngineError(
          409,
          'NOT_BOOTSTRAPPED',
          'This device has not received its household from the server yet; await sync.whenSynced() first.',
        )
      }
      // What the server will parse is the JSON the device sends, so the replica runs on the same.
      const args = rawArgs === undefined ? {} : JSON.parse(JSON.stringify(rawArgs))
      const now = new Date()
      if (this.identity.userId !== null) authorize(mutator, this.context(now))
      const parsed = parseArgs(mutator.args, args)
      const mutation: PendingMutation = { id: this.nextId++, name, args, at: now.toISOString() }
      await this.reserveThrough(mutation.id)
      // The fsync runs on the thread pool while the push leaves and PGlite applies the mutation
      // on this thread; started first, it is done sooner (it was the last thing a call waited for).
      const durable = this.queue.append({ type: 'mutation', ...mutation })
      durable.catch(() => {})
      // The replica's own flushes wait for the record, which then has IndexedDB to itself.
      this.store.holdWrites?.(durable)
      this.queueRecords++
      hooks.push?.(mutation)
      // A store that holds its writes behind the record may commit before it is durable.
      const early = this.store.holdWrites !== undefined
      let committed = false
      try {
        const tracking = this.trackTables
        const started = performance.now()
        const phases: [string, number][] = []
        const phase = (name: string) => phases.push([name, performance.now()])
        const { result, tables } = await this.store.db.transaction().execute(async (tx) => {
          phase('begin')
          const result = await this.applyOne(tx, mutation, parsed)
          phase('apply')
          if (!early) {
            await durable
            phase('queue wait')
          }
          await this.insertPending(tx, mutation)
          const tables = tracking ? await undoTables(tx, mutation.id) : null
          phase('pending')
          return { result, tables }
        })
        phase('commit')
        committed = true
        this.pendingCount++
        this.sessionRole = 'origin'
        hooks.applied?.(mutation, tables)
        if (early) {
          await durable
          phase('queue wait')
        }
        timePhases('mutate', started, phases)
        hooks.settled?.(mutation, false)
        return { mutation, result, tables }
      } catch (error) {
        // Committed already: the mutation stays pending and is sent; only its record failed.
        if (committed) {
          hooks.settled?.(mutation, false)
          throw error
        }
        // A record that never became durable needs no drop; one that did is dropped after it.
        if (
          await durable.then(
            () => true,
            () => false,
          )
        )
          await this.queue.append({ type: 'drop', id: mutation.id })
        hooks.settled?.(mutation, true)
        throw error
      }
    })
  }

  /**
   * Makes sure no restart can issue `id` again before it is pushed: a push leaves before the
   * mutation's own queue record is durable, so ids are reserved durably ahead, a block at a
   * time (one queue write per `ID_BLOCK` mutations), and a restarted device starts after the
   * block. Ids skipped that way are never used; the server only needs them increasing.
   */
  private async reserveThrough(id: number): Promise<void> {
    if (id <= this.reservedThrough) return
    const through = id + ID_BLOCK - 1
    await this.queue.append({ type: 'reserve', through })
    this.reservedThrough = through
    this.queueRecords++
  }

  /**
   * Rebases on what the server sent, in one local transaction: undo every pending mutation,
   * apply the server's rows, drop the mutations the server processed (id <= lmid), replay the
   * rest in order. A replay the new state refuses is kept pending without effect: the server
   * has the last word on it.
   */
  rebase(incoming: Incoming): Promise<RebaseOutcome> {
    return this.mutex.run(async () => {
      this.writes++
      // The last guard against a silent divergence: a delta that starts past the replica's
      // version would skip the changes in between (the connection checks this first).
      const at = this.identity.version
      if (incoming.kind === 'delta' && (at === null || incoming.fromVersion > at || incoming.version < at)) {
        throw new Error(
          `A delta from version ${incoming.fromVersion} to ${incoming.version} does not continue this replica's version ${at}.`,
        )
      }
      const started = performance.now()
      const lmid = Math.max(this.identity.lmid, incoming.lmid)
      // A small delta lands in origin mode (see `asServerRowsInOrigin`); should that fail (a
      // foreign key the delta's order or a row this device does not hold trips), the whole
      // rebase runs again the replica way, as every rebase did before.
      const attempt = (origin: boolean) =>
        this.store.db.transaction().execute((tx) => this.rebaseIn(tx, incoming, lmid, origin))
      const origin =
        incoming.kind === 'delta' &&
        this.sessionRole === 'origin' &&
        incoming.changes.length <= ORIGIN_DELTA_ROWS &&
        this.originRefusals < ORIGIN_REFUSALS_KEPT
      const outcome = origin
        ? await attempt(true).then(
            (done) => {
              // An echo or an empty delta sets no role (it applies no row), and says nothing of
              // origin mode.
              if (this.roleSet) this.originRefusals = 0
              return done
            },
            () => {
              this.originRefusals++
              return attempt(false)
            },
          )
        : await attempt(false)
      if (this.roleSet) this.sessionRole = this.roleSet
      this.identity.version = incoming.version
      this.identity.lmid = lmid
      this.pendingCount = outcome.pending
      if (this.nextId <= lmid) this.nextId = lmid + 1
      await this.compactQueue(outcome.pending)
      // Which way the rebase went, and how long it held the replica (a bench or profiler reads it).
      if (incoming.kind === 'delta') timePhases('rebase', started, [[this.rebaseWay, performance.now()]])
      return outcome
    })
  }

  /**
   * A digest of the synced rows this replica holds that its key may read (`readDigest`, the
   * server's own function), read in pages so the app's queries wait for a page at a time, not for
   * the whole digest. Null when a write (a local mutation, a rebase) ran meanwhile: the pages
   * would not be of one state. Meaningful when nothing is pending: pending mutations' effects
   * are in the rows too.
   */
  async digest(): Promise<HouseholdDigest | null> {
    // Read with no write under way; a write that starts later counts itself.
    const before = await this.mutex.run(async () => this.writes)
    const digest = await readDigest(
      this.store.db,
      this.identity.householdId,
      {
        scopes: this.identity.scopes,
        userId: this.identity.userId ?? undefined,
        role: this.identity.role ?? undefined,
      },
      { pageRows: DEVICE_DIGEST_PAGE_ROWS },
    )
    return this.writes === before ? digest : null
  }

  /** The body of a rebase, in its transaction: the server's rows in origin or in replica mode. */
  private async rebaseIn(
    tx: Transaction<Database>,
    incoming: Incoming,
    lmid: number,
    origin: boolean,
  ): Promise<RebaseOutcome> {
    const householdId = this.identity.householdId
    const db = syncDb(tx)
    this.roleSet = null
    // With nothing pending (most deltas on a device that only reads) there is nothing to read.
    const pending =
      this.pendingCount === 0
        ? []
        : await db.selectFrom('device_pending').selectAll().orderBy('mutation_id').execute()
    const untouched =
      incoming.kind === 'delta' &&
      incoming.changes.length === 0 &&
      !pending.some((p) => p.mutation_id <= lmid)
    this.rebaseWay = untouched ? 'untouched' : pending.length > 0 ? 'replay' : 'apply'
    if (untouched) {
      // Nothing arrived and nothing was confirmed: the pending mutations stay applied as they are.
      await advanceTo(tx, householdId, incoming.version, lmid, pending.length === 0)
      return { confirmed: [], pending: pending.length, tables: new Set(['household_clock']) }
    }
    const confirmed = pending.filter((p) => p.mutation_id <= lmid).map((p) => p.mutation_id)
    if (
      incoming.kind === 'delta' &&
      confirmed.length > 0 &&
      (await echoesMatch(tx, this.writer, householdId, incoming.changes, lmid))
    ) {
      // The delta holds exactly what the confirmed mutations wrote here, and no row a
      // still-pending one wrote: the replica already is the server's state plus the pending
      // mutations, so they stay applied as they are, without an undo and a replay. (The usual
      // echo: a device's own mutation coming back.) Nothing reads these writes' answers: they
      // go with the commit, in one call into PGlite.
      this.rebaseWay = 'echo'
      await keepHistory(tx, lmid)
      await executeDeferred(tx, db.deleteFrom('device_undo').where('mutation_id', '<=', lmid))
      await executeDeferred(tx, db.deleteFrom('device_pending').where('mutation_id', '<=', lmid))
      const remaining = pending.length - confirmed.length
      await advanceTo(tx, householdId, incoming.version, lmid, remaining === 0)
      return {
        confirmed,
        pending: remaining,
        tables: this.trackTables ? new Set(['household_clock']) : null,
      }
    }
    const tables: Set<string> | null =
      incoming.kind === 'snapshot' || !this.trackTables
        ? null
        : new Set(['household_clock', ...incoming.changes.map((c) => c.table)])
    // The server's rows land as they are: the triggers that derive or check rows do not fire.
    // Held, as the other statements nobody reads, for the next call into PGlite (deferred-writes.ts).
    for (const statement of origin ? asServerRowsInOrigin : [asServerRows])
      await executeDeferred(tx, statement)
    this.roleSet = origin ? 'origin' : 'replica'
    // Each row a pending mutation wrote goes back to its image from before them, in the same
    // statements that apply the server's rows: the undo images come first (newest first, so
    // the oldest image of a row is its last), and a row's last change wins. A row the server
    // sent is simply replaced; there is no separate undo pass.
    let undo: RowChangeInput[] = []
    if (pending.length > 0) {
      const images = await db
        .selectFrom('device_undo')
        .select(['table_name', 'row_id', 'row'])
        .orderBy('seq', 'desc')
        .execute()
      undo = images.map((r) => ({
        table: r.table_name,
        id: r.row_id,
        op: r.row === null ? ('delete' as const) : ('upsert' as const),
        row: r.row,
      }))
      for (const r of images) tables?.add(r.table_name)
      if (confirmed.length > 0) await keepHistory(tx, lmid)
      await db.deleteFrom('device_undo').execute()
    }
    if (incoming.kind === 'snapshot') {
      await clearHousehold(tx, householdId)
      // Pages apply as they arrive. A large table (a full page) loads without its secondary
      // indexes, which are built once afterwards, and the derived sums are added up once at the
      // end rather than by their triggers page by page.
      await pauseDerivedSums(tx)
      const rebuild: string[] = []
      const bulk = new Set<string>()
      const loaded = new Set<string>()
      for await (const page of incoming.tables) {
        if (page.rows.length >= BULK_PAGE_ROWS && !bulk.has(page.table)) {
          bulk.add(page.table)
          rebuild.push(...(await this.writer.dropIndexes(tx, page.table)))
        }
        loaded.add(page.table)
        await this.writer.load(tx, page.table, page.rows)
      }
      for (const statement of rebuild) await sql`${sql.raw(statement)}`.execute(tx)
      await resumeDerivedSums(tx, householdId)
      // PGlite runs no autovacuum, so nothing else gives the planner the loaded rows' statistics:
      // without them a 100,000-row household plans its lookups as if the tables were as small
      // as they were (a 10,000-row import's payee look-ups took seconds instead of milliseconds).
      if (loaded.size > 0) await sql`analyze ${sql.join([...loaded].map((t) => sql.id(t)))}`.execute(tx)
    } else {
      await this.writer.apply(
        tx,
        householdId,
        undo.length > 0 ? [...undo, ...incoming.changes] : incoming.changes,
      )
    }
    // The clock restarts from the server's; the replays below tick it past.
    await advanceTo(tx, householdId, incoming.version, lmid, true)
    if (confirmed.length > 0)
      await executeDeferred(tx, db.deleteFrom('device_pending').where('mutation_id', '<=', lmid))
    const remaining = pending.filter((p) => p.mutation_id > lmid)
    if (remaining.length > 0) {
      // Origin mode checks the deferred foreign keys before the first replay (with none, the
      // commit checks them): one that fails fails the replay's savepoint, so the rebase.
      if (origin) for (const statement of serverRowsDone) await executeDeferred(tx, statement)
      for (const p of remaining) {
        await this.replay(tx, { id: p.mutation_id, name: p.name, args: p.args, at: toIso(p.created_at) })
      }
      if (tables) for (const t of await undoTables(tx)) tables.add(t)
    }
    return { confirmed, pending: remaining.length, tables }
  }

  /** Pending mutations after `afterId`, oldest first, as they are pushed. */
  async pendingAfter(afterId: number, limit = 500): Promise<PendingMutation[]> {
    const rows = await syncDb(this.store.db)
      .selectFrom('device_pending')
      .selectAll()
      .where('mutation_id', '>', afterId)
      .orderBy('mutation_id')
      .limit(limit)
      .execute()
    return rows.map((r) => ({ id: r.mutation_id, name: r.name, args: r.args, at: toIso(r.created_at) }))
  }

  /** Records who the server says this device acts as; local checks use it from now on. */
  saveIdentity(identity: { userId: string; role: Role; scopes: Scope[]; lmid: number }): Promise<void> {
    return this.mutex.run(async () => {
      await syncDb(this.store.db)
        .updateTable('device_state')
        .set({ user_id: identity.userId, role: identity.role, scopes: identity.scopes })
        .where('household_id', '=', this.identity.householdId)
        .execute()
      Object.assign(this.identity, { userId: identity.userId, role: identity.role, scopes: identity.scopes })
      // The server's record wins over a store that lost its own: never reuse an id it has seen.
      if (this.nextId <= identity.lmid) this.nextId = identity.lmid + 1
    })
  }

  async close(): Promise<void> {
    await this.mutex.run(async () => {
      // A device that closes with nothing pending leaves a queue of its header alone.
      if (this.pendingCount === 0 && this.queueRecords > 0) await this.compactQueue(0, true)
      await this.queue.close()
      await this.store.close()
    })
  }

  /**
   * Makes the replica hold every queued mutation: one the queue has but the replica does not
   * (the process died between the two writes) is applied now and becomes pending, unless it
   * was dropped or the server already processed it.
   */
  private async reconcile(records: QueueRecord[], floor: number): Promise<void> {
    const db = syncDb(this.store.db)
    const dropped = new Set(records.flatMap((r) => (r.type === 'drop' ? [r.id] : [])))
    const pendingIds = new Set(
      (await db.selectFrom('device_pending').select('mutation_id').execute()).map((r) => r.mutation_id),
    )
    const mutations = records.flatMap((r) => (r.type === 'mutation' ? [r] : []))
    const missing = mutations.filter(
      (m) => !dropped.has(m.id) && m.id > this.identity.lmid && !pendingIds.has(m.id),
    )
    if (missing.length > 0) {
      await this.store.db.transaction().execute(async (tx) => {
        for (const m of missing) {
          const mutation = { id: m.id, name: m.name, args: m.args, at: m.at }
          // Without a first snapshot there is nothing to apply it to; the rebase will replay it.
          if (this.identity.version !== null) await this.replay(tx, mutation)
          await this.insertPending(tx, mutation)
        }
      })
    }
    this.pendingCount = pendingIds.size + missing.length
    this.queueRecords = mutations.length
    const highest = [...mutations.map((m) => m.id), ...pendingIds].reduce((a, b) => Math.max(a, b), 0)
    this.nextId = Math.max(floor, this.identity.lmid, highest) + 1
    this.reservedThrough = this.nextId - 1
  }

  /** Applies one mutation as pending: undo images on, deferred checks run at its end. */
  private async applyOne(tx: Transaction<Database>, m: PendingMutation, parsed?: unknown) {
    const mutator = deviceMutator(m.name)
    // A local call parsed its arguments already; a replay parses the ones it stored.
    const args = parsed ?? parseArgs(mutator.args, m.args)
    await executeDeferred(tx, asLocalMutation)
    this.roleSet = 'origin'
    await executeDeferred(tx, sql`set constraints all deferred`)
    const { result } = await applyMutation(tx, mutator, args, this.context(new Date(m.at), m.id), {
      effects: 'discard',
      undoFor: m.id,
    })
    // Its deferred checks run at its end; held, so one that fails fails the next statement
    // awaited (the commit, or a replay's release) with its own error.
    await executeDeferred(tx, sql`set constraints all immediate`)
    // hearth.undo stays set: what follows in the transaction (the pending record, the next
    // replay, which names its own id, the cursor) writes no logged table.
    return result
  }

  /** Replays a pending mutation in a savepoint; a refusal leaves it without local effect. */
  private async replay(tx: Transaction<Database>, m: PendingMutation) {
    this.replays++
    await sql`savepoint hearth_replay`.execute(tx)
    try {
      await this.applyOne(tx, m)
      await sql`release savepoint hearth_replay`.execute(tx)
      return true
    } catch {
      await sql`rollback to savepoint hearth_replay`.execute(tx)
      return false
    }
  }

  private async insertPending(tx: Transaction<Database>, m: PendingMutation) {
    await executeDeferred(
      tx,
      syncDb(tx)
        .insertInto('device_pending')
        .values({ mutation_id: m.id, name: m.name, args: JSON.stringify(m.args), created_at: m.at }),
    )
  }

  /** Rewrites the queue without its confirmed records once they pile up. */
  private async compactQueue(pending: number, now = false): Promise<void> {
    if (!now && this.queueRecords < (pending > 0 ? COMPACT_AFTER : COMPACT_IDLE_AFTER)) return
    const rest = await this.pendingAfter(this.identity.lmid, Number.MAX_SAFE_INTEGER)
    await this.queue.rewrite([
      {
        type: 'client',
        clientId: this.identity.clientId,
        householdId: this.identity.householdId,
        floor: Math.max(this.nextId - 1, this.reservedThrough),
      },
      ...rest.map((m) => ({ type: 'mutation' as const, ...m })),
    ])
    this.queueRecords = rest.length
  }
}

/**
 * Whether a delta is only the echo of this device's confirmed mutations (id <= lmid), exactly as
 * they were applied here: every row they wrote is in the delta, every row of the delta equals
 * the replica's row now (or is gone on both sides), and no still-pending mutation wrote one of
 * those rows. Then the server's state at the delta's version is the replica's state under the
 * pending mutations, and replaying them would write what they already wrote.
 */
async function echoesMatch(
  tx: Transaction<Database>,
  writer: RowWriter,
  householdId: string,
  changes: readonly RowChangeInput[],
  lmid: number,
): Promise<boolean> {
  if (changes.length === 0) return false
  const finals = new Map<string, RowChangeInput>()
  for (const c of changes) finals.set(`${c.table}\u0000${c.id}`, c)
  const undo = await syncDb(tx)
    .selectFrom('device_undo')
    .select(['mutation_id', 'table_name', 'row_id'])
    .execute()
  for (const u of undo) {
    const inDelta = finals.has(`${u.table_name}\u0000${u.row_id}`)
    if (u.mutation_id <= lmid ? !inDelta : inDelta) return false
  }
  const byTable = new Map<string, RowChangeInput[]>()
  for (const c of finals.values()) byTable.set(c.table, [...(byTable.get(c.table) ?? []), c])
  for (const [table, rows] of byTable) {
    const key = await writer.key(tx, table)
    const column = sql.ref(`t.${key.at(-1)}`)
    const { rows: local } = await sql<{ k: string; row: Record<string, unknown> }>`
      select ${column}::text as k, to_jsonb(t) as row from ${sql.table(table)} t
      where ${column}::text in (${sql.join(rows.map((r) => r.id))})
        and ${sql.ref(`t.${key.length === 1 ? key[0] : 'household_id'}`)} = ${householdId}`.execute(tx)
    const here = new Map(local.map((r) => [r.k, r.row]))
    for (const c of rows) {
      const mine = here.get(c.id)
      if (c.op === 'delete' ? mine !== undefined : !sameJson(mine, c.row)) return false
    }
  }
  return true
}

/** How many of its confirmed mutations a device can still undo offline (`device_history`). */
const HISTORY_KEPT = 200

/**
 * Keeps the row images of the mutations the server confirmed (id <= `lmid`) for an offline undo
 * (`activity.undoMutation`): each row's first image per mutation moves from `device_undo` to
 * `device_history`, which keeps the last `HISTORY_KEPT` mutations. Held for the commit.
 */
async function keepHistory(tx: Transaction<Database>, lmid: number): Promise<void> {
  await executeDeferred(
    tx,
    sql`insert into device_history (mutation_id, seq, table_name, household_id, row_id, before)
      select distinct on (mutation_id, table_name, row_id) mutation_id, seq, table_name, household_id, row_id, row
      from device_undo where mutation_id <= ${lmid}
      order by mutation_id, table_name, row_id, seq
      on conflict do nothing`,
  )
  await executeDeferred(
    tx,
    sql`delete from device_history where mutation_id < (
      select min(mutation_id) from (
        select distinct mutation_id from device_history order by mutation_id desc limit ${HISTORY_KEPT}) kept)`,
  )
}

/**
 * Moves the replica's cursor to the server's version and lmid and, with `clock`, the local clock
 * to that version too (so with nothing pending the two agree; pending mutations left applied keep
 * the ticks they added). Held for the commit, as nothing reads its answer.
 */
async function advanceTo(
  tx: Transaction<Database>,
  householdId: string,
  version: number,
  lmid: number,
  clock: boolean,
): Promise<void> {
  await executeDeferred(
    tx,
    sql`
      with clock as (
        insert into household_clock (household_id, version)
        select ${householdId}, ${version} where ${clock}
        on conflict (household_id) do update set version = excluded.version
      )
      update device_state set version = ${version}, lmid = ${lmid}
      where household_id = ${householdId}`,
  )
}

/** Deep equality of two JSON values, ignoring key order. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  if (ka.length !== kb.length) return false
  return ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
}

/** The tables pending mutations (or one of them) wrote, from the undo images the trigger recorded. */
async function undoTables(tx: Transaction<Database>, mutationId?: number): Promise<Set<string>> {
  let query = syncDb(tx).selectFrom('device_undo').select('table_name').distinct()
  if (mutationId !== undefined) query = query.where('mutation_id', '=', mutationId)
  const rows = await query.execute()
  // A mutation also moves the household's clock.
  return new Set(['household_clock', ...rows.map((r) => r.table_name)])
}

function toIso(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : new Date(value).toISOString()
}

/**
 * Leaves the last call's phases on the performance timeline as `hearth: <what> <phase>` (each
 * name once: the previous entry of that name is cleared), for a bench or the browser's profiler
 * to read; `phases` are the times each phase ended.
 */
function timePhases(what: string, start: number, phases: readonly [string, number][]): void {
  let from = start
  for (const [name, end] of phases) {
    const entry = `hearth: ${what} ${name}`
    performance.clearMeasures(entry)
    performance.measure(entry, { start: from, end })
    from = end
  }
}
