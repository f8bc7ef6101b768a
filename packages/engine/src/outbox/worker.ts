import type { Kysely } from 'kysely'
import type { Database } from '../database.ts'
import { claimOutbox, completeOutbox, failOutbox, type OutboxItem } from './outbox.ts'

/** Handles one item of a topic; throwing schedules a retry. */
export type OutboxHandler = (item: OutboxItem) => Promise<void>

/**
 * Handles a batch of items of one topic, in the outbox's order; throwing hands each item to it
 * again alone, so one bad item fails (and is retried) alone.
 */
export type OutboxBatchHandler = (items: OutboxItem[]) => Promise<void>

/** Options for the worker loop. */
export interface OutboxWorkerOptions {
  handlers: Record<string, OutboxHandler>
  /** Topics whose items are handled a batch at a time (one topic is in `handlers` or here). */
  batchHandlers?: Record<string, OutboxBatchHandler>
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
  #topics: string[]
  #running = false
  #loop: Promise<void> | null = null
  #wake: (() => void) | null = null

  constructor(db: Kysely<Database>, options: OutboxWorkerOptions) {
    this.#db = db
    this.#options = { batchSize: 20, leaseMs: 60_000, idleMs: 1000, batchHandlers: {}, ...options }
    this.#topics = [...Object.keys(this.#options.handlers), ...Object.keys(this.#options.batchHandlers)]
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
      topics: this.#topics,
    })
    // The batch's handled items are marked done together: one statement per batch rather than
    // one per item, which on PGlite held every request behind a burst of a hundred statements
    // each second under load. An item handled but not yet marked when the process dies is
    // handled again once its lease runs out, as at-least-once delivery allows.
    const done: number[] = []
    const one = async (item: OutboxItem, handle: () => Promise<void>) => {
      try {
        await handle()
        done.push(item.id)
      } catch (error) {
        this.#options.onError?.(error, item)
        await failOutbox(this.#db, item, error instanceof Error ? error.message : String(error))
      }
    }
    try {
      // Each batch topic's items together, in order; the others one by one.
      const batches = new Map<string, OutboxItem[]>()
      for (const item of items) {
        const batch = this.#options.batchHandlers[item.topic]
        if (batch) {
          const list = batches.get(item.topic) ?? []
          if (list.length === 0) batches.set(item.topic, list)
          list.push(item)
        } else {
          await one(item, () => this.#options.handlers[item.topic]!(item))
        }
      }
      for (const [topic, list] of batches) {
        const batch = this.#options.batchHandlers[topic]!
        try {
          await batch(list)
          done.push(...list.map((i) => i.id))
        } catch {
          for (const item of list) await one(item, () => batch([item]))
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
