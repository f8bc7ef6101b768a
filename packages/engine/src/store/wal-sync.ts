import { closeSync, fdatasyncSync, openSync } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'

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
 * Group commit for the embedded store's write-ahead log. PostgreSQL asks for each commit's WAL
 * to be synced (`defer`), inside a synchronous call into WebAssembly where waiting would stop
 * the whole process; the sync is run here instead, on Node's thread pool, once the call is
 * over, and `settle` answers when every WAL write made so far is on stable storage. Commits
 * that finish while a sync is running share the next one. An fdatasync from our own file
 * handle flushes the file, whoever wrote it: the kernel syncs the file, not the descriptor.
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
  readonly #handles = new Map<string, Promise<FileHandle>>()

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
      const fd = openSync(path, 'r')
      try {
        fdatasyncSync(fd)
      } finally {
        closeSync(fd)
      }
    } catch (error) {
      this.#failure = new DurabilityError(error)
      throw this.#failure
    }
    this.#dirty.delete(path)
    this.#moved.add(path)
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
    try {
      for (const path of new Set([...this.#dirty, ...this.#syncing])) {
        if (this.#moved.has(path)) continue
        const fd = openSync(path, 'r')
        try {
          fdatasyncSync(fd)
        } finally {
          closeSync(fd)
        }
      }
    } catch (error) {
      this.#failure = new DurabilityError(error)
      throw this.#failure
    }
    this.#dirty.clear()
    this.#synced = Math.max(this.#synced, upTo)
  }

  /**
   * Answers once every WAL write deferred before this call is on stable storage. A commit that a
   * running round does not cover starts a second round at once rather than queueing behind the
   * first (so a lone write pays one sync, not the tail of someone else's); past two rounds in
   * flight, it waits and shares the next. Each wait is for a sync in flight: real I/O, so the
   * event loop turns.
   */
  async settle(): Promise<void> {
    const target = this.#deferred
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

  /** Closes the handles kept open. */
  async close(): Promise<void> {
    await Promise.allSettled(this.#rounds.map((r) => r.done))
    const handles = [...this.#handles.values()]
    this.#handles.clear()
    await Promise.all(handles.map(async (h) => (await h.catch(() => null))?.close()))
  }

  #start(): Round {
    const upTo = this.#deferred
    const paths = [...this.#dirty]
    this.#dirty.clear()
    for (const path of paths) this.#syncing.add(path)
    const round: Round = { upTo, finished: false, done: Promise.resolve() }
    round.done = (async () => {
      try {
        await Promise.all(
          paths.map(async (path) => {
            try {
              await (await this.#handle(path)).datasync()
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

  #handle(path: string): Promise<FileHandle> {
    let handle = this.#handles.get(path)
    if (!handle) {
      handle = open(path, 'r')
      this.#handles.set(path, handle)
      handle.catch(() => this.#handles.delete(path))
      for (const [old, h] of this.#handles) {
        if (this.#handles.size <= KEPT_HANDLES) break
        if (this.#syncing.has(old) || this.#dirty.has(old)) continue
        this.#handles.delete(old)
        void h.then((fh) => fh.close()).catch(() => {})
      }
    }
    return handle
  }
}
