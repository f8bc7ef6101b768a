import { closeSync, fdatasync, fdatasyncSync, openSync } from 'node:fs'

/** One fdatasync of the dirty segments. */
interface Round {
  upTo: number
  finished: boolean
  done: Promise<void>
}

/** Thrown by every commit after a sync of the write-ahead log failed: the store cannot promise anything. */
export class DurabilityError extends Error {
  constructor(cause: unknown) {
    super(
      `Syncing the embedded store's write-ahead log failed (${cause instanceof Error ? cause.message : String(cause)}); ` +
        'no further write is acknowledged. Check the disk, then restart the server.',
      { cause },
    )
    this.name = 'DurabilityError'
  }
}

/** Handles kept open on recent segments; older ones are closed, a new segment every 16 MB. */
const KEPT_HANDLES = 4
/** Syncs in flight at once: a commit never waits behind more than one sync it does not need. */
const MAX_ROUNDS = 2
/**
 * A lone commit syncs in place, on the main thread, while this disk's recent syncs take less than
 * this on average: a sync handed to the thread pool costs two thread wake-ups more, which on a
 * fast disk is as much again as the sync. On a slow disk (an SD card, a busy machine) the server
 * keeps serving while it waits instead.
 */
const IN_PLACE_UNDER_MS = 10

/**
 * Group commit for the embedded store's write-ahead log. PostgreSQL asks for each commit's WAL
 * to be synced (`defer`), inside a synchronous call into WebAssembly where waiting would stop
 * the whole process; the sync is run here instead, on Node's thread pool, once the call is
 * over, and `settle` answers when every WAL write made so far is on stable storage. Commits
 * that finish while a sync is running share the next one. An fdatasync from our own file
 * descriptor flushes the file, whoever wrote it: the kernel syncs the file, not the descriptor.
 */
export class WalSync {
  /** Segment files with writes not yet synced. */
  #dirty = new Set<string>()
  /** Files a running round has taken and not finished. */
  #syncing = new Set<string>()
  #deferred = 0
  #synced = 0
  /** Syncs started and not yet counted, oldest first, each covering the writes deferred before it. */
  #rounds: Round[] = []
  #failure: DurabilityError | null = null
  /** Descriptors kept open on recent segments, by path. */
  readonly #fds = new Map<string, number>()
  /**
   * A moving average of how long this disk takes to sync, in milliseconds (see `#took`): what
   * decides whether a lone commit may sync in place.
   */
  #syncMs = 0
  /** Syncs run, in place and on the thread pool (for tests and benchmarks). */
  readonly counts = { inPlace: 0, pooled: 0 }

  /** Segments synced and then renamed or removed while a round may still name them. */
  #moved = new Set<string>()

  /**
   * `path` is about to be renamed or removed: if a sync of it is waiting or running, it is synced
   * now, blocking, while the name still holds; a round that then finds the name gone is done.
   */
  moving(path: string): void {
    if (!this.#dirty.has(path) && !this.#syncing.has(path)) return
    if (this.#failure) throw this.#failure
    try {
      fdatasyncSync(this.#fd(path))
    } catch (error) {
      this.#failure = new DurabilityError(error)
      throw this.#failure
    }
    this.#dirty.delete(path)
    this.#moved.add(path)
    // The name is going: a descriptor no running sync uses is closed (an unlinked segment's space is freed).
    const fd = this.#fds.get(path)
    if (fd !== undefined && !this.#syncing.has(path)) {
      this.#fds.delete(path)
      closeSync(fd)
    }
  }

  /** Records that `path` (a WAL segment) was asked to be synced. */
  defer(path: string): void {
    this.#dirty.add(path)
    this.#deferred++
  }

  /** Whether a WAL write waits for its sync. */
  get pending(): boolean {
    return this.#synced < this.#deferred
  }

  /**
   * Syncs every deferred WAL write now, blocking: before PostgreSQL writes or syncs any other
   * file (a data page, the control file at a checkpoint), so no file on disk is ever ahead of
   * the log that explains it.
   */
  syncNow(): void {
    if (!this.pending) return
    if (this.#failure) throw this.#failure
    const upTo = this.#deferred
    const start = performance.now()
    try {
      for (const path of new Set([...this.#dirty, ...this.#syncing])) {
        if (this.#moved.has(path)) continue
        fdatasyncSync(this.#fd(path))
      }
    } catch (error) {
      this.#failure = new DurabilityError(error)
      throw this.#failure
    }
    const took = performance.now() - start
    this.#took(took, true)
    this.counts.inPlace++
    this.#dirty.clear()
    this.#synced = Math.max(this.#synced, upTo)
  }

  /**
   * Answers once every WAL write deferred before this call is on stable storage; at once when
   * there is none (a read that found nothing waiting). `alone` says nobody else waits for the
   * store: then, with no sync running and a fast disk, the sync runs in place (one system call,
   * no thread hand-off), as a lone commit gains nothing from waiting for company. Otherwise a
   * commit that a running round does not cover starts a second round at once rather than
   * queueing behind the first (so a lone write pays one sync, not the tail of someone else's);
   * past two rounds in flight, it waits and shares the next. Each wait is for a sync in flight:
   * real I/O, so the event loop turns and the other callers run meanwhile.
   */
  async settle(alone = false): Promise<void> {
    const target = this.#deferred
    if (this.#synced < target && alone && this.#rounds.length === 0 && this.#syncMs < IN_PLACE_UNDER_MS) {
      this.syncNow()
    }
    while (this.#synced < target) {
      if (this.#failure) throw this.#failure
      // A round done but not yet counted (an earlier one still runs) covers too: never start an
      // empty round, which would finish without I/O and spin here.
      const covered = this.#rounds.some((r) => r.upTo >= target)
      const running = this.#rounds.filter((r) => !r.finished)
      if (!covered && running.length < MAX_ROUNDS) running.push(this.#start())
      await Promise.race(running.map((r) => r.done))
    }
    if (this.#failure) throw this.#failure
  }

  /** Closes the descriptors kept open. */
  async close(): Promise<void> {
    await Promise.allSettled(this.#rounds.map((r) => r.done))
    for (const fd of this.#fds.values()) closeSync(fd)
    this.#fds.clear()
  }

  #start(): Round {
    const upTo = this.#deferred
    const paths = [...this.#dirty]
    this.#dirty.clear()
    for (const path of paths) this.#syncing.add(path)
    const round: Round = { upTo, finished: false, done: Promise.resolve() }
    const start = performance.now()
    round.done = (async () => {
      try {
        await Promise.all(
          paths.map(async (path) => {
            try {
              const fd = this.#fd(path)
              await new Promise<void>((resolve, reject) =>
                fdatasync(fd, (error) => (error ? reject(error) : resolve())),
              )
            } catch (error) {
              // Synced by `moving` before PostgreSQL renamed or removed it.
              if ((error as NodeJS.ErrnoException).code === 'ENOENT' && this.#moved.has(path)) return
              throw error
            }
          }),
        )
      } catch (error) {
        // As PostgreSQL does after a failed fsync: never retry and pretend, the kernel may have dropped the pages.
        this.#failure ??= new DurabilityError(error)
        throw this.#failure
      } finally {
        this.#took(performance.now() - start, false)
        this.counts.pooled++
        round.finished = true
        // Rounds may finish out of order: writes are covered once every earlier round is done too.
        while (this.#rounds[0]?.finished) this.#synced = Math.max(this.#synced, this.#rounds.shift()!.upTo)
        if (this.#rounds.length === 0) {
          this.#syncing.clear()
          this.#moved.clear()
        }
      }
    })()
    // Its failure reaches every settle through #failure; nobody need be listening to this one.
    round.done.catch(() => {})
    this.#rounds.push(round)
    return round
  }

  /**
   * Records how long a sync took, in the moving average. A sync that blocked (`exact`) took just
   * the disk's time. A round on the thread pool is timed from its start to its callback, which
   * also holds the hand-off to a thread and back and any wait for the event loop, busy with other
   * requests or starved of CPU on a loaded machine: an upper bound, so it only ever lowers the
   * average (a round done in 2 ms shows a disk that syncs within 2 ms; one done in 40 ms may
   * show a busy process, not a slow disk). Counted both ways, a busy spell once pushed the
   * average past `IN_PLACE_UNDER_MS` and kept it there, as every sync then ran on the thread
   * pool and was timed with the waits: on a loaded machine no lone REST write synced in place.
   */
  #took(ms: number, exact: boolean): void {
    if (!exact && ms >= this.#syncMs) return
    this.#syncMs += (ms - this.#syncMs) / 8
  }

  /**
   * A descriptor on `path`, opened once (a segment is written for 16 MB); the oldest are closed,
   * but never one a sync may still use.
   */
  #fd(path: string): number {
    let fd = this.#fds.get(path)
    if (fd === undefined) {
      fd = openSync(path, 'r')
      this.#fds.set(path, fd)
      for (const [old, oldFd] of this.#fds) {
        if (this.#fds.size <= KEPT_HANDLES) break
        if (old === path || this.#syncing.has(old) || this.#dirty.has(old)) continue
        this.#fds.delete(old)
        closeSync(oldFd)
      }
    }
    return fd
  }
}
