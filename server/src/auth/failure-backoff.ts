/** How failures of one kind (per address, per key prefix) are counted and backed off. */
export interface FailureBackoffOptions {
  /** Failures allowed in a window; the next one starts a block. */
  limit: number
  /** The counting window, and the first block's length, in milliseconds. */
  windowMs: number
  /** The longest block; a source quiet this long after its block starts again from one window. */
  maxBlockMs: number
}

interface Entry {
  failures: number
  windowEnds: number
  strikes: number
  blockedUntil: number
}

/**
 * Counts failures per source and blocks a source that passes `limit` failures in a window, for
 * one window, then twice as long at its next strike, and so on up to `maxBlockMs`. It only ever
 * sees failures: a caller that verified is never asked about, so a block cannot refuse it.
 */
export class FailureBackoff {
  private readonly entries = new Map<string, Entry>()
  private sweptAt = 0

  constructor(
    readonly options: FailureBackoffOptions,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Whether `source` is blocked now; the milliseconds left if so. */
  blockedFor(source: string): number {
    const entry = this.entries.get(source)
    return entry ? Math.max(0, entry.blockedUntil - this.clock()) : 0
  }

  /**
   * Counts a failure of `source`; answers the milliseconds it must wait (0 when not blocked). A
   * failure during a block is not counted: the block already answers it, and its strike is taken.
   */
  failed(source: string): number {
    const now = this.clock()
    this.sweep(now)
    const { limit, windowMs, maxBlockMs } = this.options
    let entry = this.entries.get(source)
    if (entry && now >= entry.blockedUntil + maxBlockMs && now >= entry.windowEnds) entry = undefined
    if (!entry) {
      entry = { failures: 0, windowEnds: now + windowMs, strikes: 0, blockedUntil: 0 }
      this.entries.set(source, entry)
    }
    if (now < entry.blockedUntil) return entry.blockedUntil - now
    if (now >= entry.windowEnds) {
      entry.failures = 0
      entry.windowEnds = now + windowMs
    }
    entry.failures++
    if (entry.failures <= limit) return 0
    entry.strikes++
    const block = Math.min(windowMs * 2 ** (entry.strikes - 1), Math.max(maxBlockMs, windowMs))
    entry.blockedUntil = now + block
    // The next window opens when the block ends: the source gets `limit` more before its next strike.
    entry.failures = 0
    entry.windowEnds = entry.blockedUntil
    return block
  }

  /** How many sources are remembered (for tests of the memory bound). */
  get size(): number {
    return this.entries.size
  }

  /** Forgets sources that are neither counting nor remembered for their strikes, once a window. */
  private sweep(now: number): void {
    if (now - this.sweptAt < this.options.windowMs) return
    this.sweptAt = now
    for (const [source, entry] of this.entries) {
      const strikesKept = entry.strikes > 0 && now < entry.blockedUntil + this.options.maxBlockMs
      if (now >= entry.windowEnds && now >= entry.blockedUntil && !strikesKept) this.entries.delete(source)
    }
  }
}
