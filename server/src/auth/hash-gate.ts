/** How many password checks one source may have at once (docs/security.md, "Wrong passwords"). */
export interface HashGateOptions {
  /** Checks of one source computing at once. */
  inFlight: number
  /** Checks of one source waiting for a turn; one more is refused (Infinity: none is). */
  waiting: number
}

interface Source {
  running: number
  queue: (() => void)[]
}

/**
 * Bounds the scrypt hashes one source (a client address, an account) can have computed at once:
 * `inFlight` at a time, `waiting` more queued in order, and past that `enter` answers null so the
 * caller refuses the attempt without hashing it. A source with nothing running or waiting is
 * forgotten, so memory follows the checks under way.
 */
export class HashGate {
  private readonly sources = new Map<string, Source>()
  /** Checks that waited for a turn, and checks refused, since start (for tests and logs). */
  readonly counts = { waited: 0, refused: 0 }

  constructor(readonly options: HashGateOptions) {}

  /**
   * A turn for `source`: a promise of the function that ends it (call it once the hash is done,
   * whatever its outcome), or null when `source` has `waiting` checks queued already.
   */
  enter(source: string): Promise<() => void> | null {
    let entry = this.sources.get(source)
    if (!entry) {
      entry = { running: 0, queue: [] }
      this.sources.set(source, entry)
    }
    const held = entry
    const release = () => {
      const next = held.queue.shift()
      if (next) next()
      else if (--held.running === 0) this.sources.delete(source)
    }
    if (held.running < this.options.inFlight) {
      held.running++
      return Promise.resolve(once(release))
    }
    if (held.queue.length >= this.options.waiting) {
      this.counts.refused++
      return null
    }
    this.counts.waited++
    // A turn passes from the check that ends to the first waiting one: `running` stays the same.
    return new Promise((resolve) => held.queue.push(() => resolve(once(release))))
  }

  /** The sources with checks running or waiting (for tests of the memory bound). */
  get size(): number {
    return this.sources.size
  }
}

function once(release: () => void): () => void {
  let done = false
  return () => {
    if (done) return
    done = true
    release()
  }
}
