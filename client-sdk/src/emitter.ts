/** A minimal typed event emitter; the core avoids Node's `events` so it bundles for browsers. */
export class Emitter<Events extends Record<string, unknown>> {
  private readonly listeners = new Map<keyof Events, Set<(payload: never) => void>>()

  /** Subscribes; returns the unsubscribe function. */
  on<K extends keyof Events>(event: K, listener: (payload: Events[K]) => void): () => void {
    let set = this.listeners.get(event)
    if (!set) {
      set = new Set()
      this.listeners.set(event, set)
    }
    set.add(listener as (payload: never) => void)
    return () => set.delete(listener as (payload: never) => void)
  }

  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) {
      try {
        ;(listener as (payload: Events[K]) => void)(payload)
      } catch (error) {
        // A listener's bug must not break sync; report it where a developer looks.
        queueMicrotask(() => {
          throw error
        })
      }
    }
  }
}

/** Runs tasks one at a time, in call order: every write to the replica goes through one. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve()

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task)
    this.tail = result.catch(() => {})
    return result
  }
}
