import type { Kysely } from 'kysely'
import type { Database } from '../database.ts'
import { claimOutbox, completeOutbox, failOutbox, type OutboxItem } from './outbox.ts'

/** Handles one item of a topic; throwing schedules a retry. */
export type OutboxHandler = (item: OutboxItem) => Promise<void>

/** Options for the worker loop. */
export interface OutboxWorkerOptions {
  handlers: Record<string, OutboxHandler>
  batchSize?: number
  leaseMs?: number
  idleMs?: number
  onError?: (error: unknown, item?: OutboxItem) => void
}

/**
 * Polls the outbox, runs each claimed item's handler outside any transaction, and records the
 * outcome. Items whose topic has no handler are left for a worker that has one.
 */
export class OutboxWorker {
  #db: Kysely<Database>
  #options: Required<Omit<OutboxWorkerOptions, 'onError'>> & Pick<OutboxWorkerOptions, 'onError'>
  #running = false
  #loop: Promise<void> | null = null
  #wake: (() => void) | null = null

  constructor(db: Kysely<Database>, options: OutboxWorkerOptions) {
    this.#db = db
    this.#options = { batchSize: 20, leaseMs: 60_000, idleMs: 1000, ...options }
  }

  /** Starts the loop; it runs until `stop`. */
  start(): void {
    if (this.#running) return
    this.#running = true
    this.#loop = this.#run()
  }

  /** Asks the loop to look for work now instead of after its idle wait. */
  poke(): void {
    this.#wake?.()
  }

  /** Processes due items until none are left; returns how many were handled. */
  async drain(): Promise<number> {
    let total = 0
    for (;;) {
      const n = await this.tick()
      if (n === 0) return total
      total += n
    }
  }

  /** Claims and handles one batch. */
  async tick(): Promise<number> {
    const items = await claimOutbox(this.#db, {
      limit: this.#options.batchSize,
      leaseMs: this.#options.leaseMs,
      topics: Object.keys(this.#options.handlers),
    })
    // The batch's handled items are marked done together: one statement per batch rather than
    // one per item, which on PGlite held every request behind a burst of a hundred statements
    // each second under load. An item handled but not yet marked when the process dies is
    // handled again once its lease runs out, as at-least-once delivery allows.
    const done: number[] = []
    try {
      for (const item of items) {
        const handler = this.#options.handlers[item.topic]!
        try {
          await handler(item)
          done.push(item.id)
        } catch (error) {
          this.#options.onError?.(error, item)
          await failOutbox(this.#db, item, error instanceof Error ? error.message : String(error))
        }
      }
    } finally {
      await completeOutbox(this.#db, done)
    }
    return items.length
  }

  /** Stops after the batch in hand, so no claimed item is abandoned mid-flight. */
  async stop(): Promise<void> {
    this.#running = false
    this.#wake?.()
    await this.#loop
  }

  async #run(): Promise<void> {
    while (this.#running) {
      let handled = 0
      try {
        handled = await this.tick()
      } catch (error) {
        this.#options.onError?.(error)
      }
      if (handled === 0 && this.#running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.#options.idleMs)
          this.#wake = () => {
            clearTimeout(timer)
            resolve()
          }
        })
        this.#wake = null
      }
    }
  }
}
