import {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimDeliveries,
  operations,
  type RecordedAttempt,
  recordAttempts,
  releaseDeliveries,
  runMutation,
  SCOPES,
  type Store,
} from '@hearth/engine'
import type { Logger } from 'pino'
import { Webhook } from 'standardwebhooks'
import { nextStep, RETRY_SCHEDULE_MS } from './retry-schedule.ts'
import type { SecretBox } from './secret-box.ts'
import { postToReceiver } from './send.ts'
import { cachedLookup, resolveTarget, systemLookup, type UrlGuardOptions } from './url-guard.ts'

/** How the dispatcher sends. */
export interface WebhookDispatcherOptions {
  box: SecretBox
  guard: UrlGuardOptions
  logger: Logger
  /** Per attempt, the whole exchange; 10 s. */
  timeoutMs?: number
  /** Attempts in flight at once in this process; 64. */
  concurrency?: number
  /** Attempts in flight to one subscription from this process; 8. */
  perSubscription?: number
  /**
   * Deliveries held at once in this process (in flight and waiting their turn); 256. Held
   * deliveries are claimed in one statement and their outcomes recorded together, so the more a
   * claim takes, the fewer statements a burst costs.
   */
  maxHeld?: number
  /**
   * Deliveries of one subscription held at once, as a multiple of `perSubscription`, for one whose
   * receiver answers fast; 32. One that answers slowly, or has not answered yet, gets one round
   * (`perSubscription`), so a hanging receiver holds a few deliveries, not a queue of them.
   */
  maxRounds?: number
  /** Waits between retries; `RETRY_SCHEDULE_MS`. */
  retryScheduleMs?: readonly number[]
  idleMs?: number
}

/** A leased delivery waiting for a slot, and when it was leased. */
interface Held {
  item: ClaimedDelivery
  claimedAt: number
}

/** One subscription's deliveries in this process. */
interface SubscriptionQueue {
  /** Leased deliveries waiting for a slot, in their order (claim times never decrease along it). */
  waiting: Held[]
  /** When each attempt in flight began (sending; their outcomes are recorded after). */
  sending: Set<number>
  /** Held: waiting, sending or recording. */
  held: number
  /** The last claim took as many as this subscription had room for: more may be due. */
  more: boolean
}

/**
 * Sends due webhook deliveries, many at once, each with its own timeout, so a slow or dead
 * receiver holds only its own few slots and never another subscription, household or request.
 * Deliveries are leased from the store (`claimDeliveries`), so servers sharing it send each once.
 *
 * A burst costs few statements: one claim leases deliveries for many slots at once (many of a
 * subscription that answers fast, one round of one that does not), and outcomes are recorded
 * together (group commit). A delivery leased but not started in time is given back unattempted.
 */
export class WebhookDispatcher {
  readonly #store: Store
  readonly #o: Required<WebhookDispatcherOptions>
  /** Attempts and recordings under way, for `stop`. */
  readonly #tasks = new Set<Promise<void>>()
  readonly #subs = new Map<string, SubscriptionQueue>()
  /** Each subscription's recent answer time (a moving average, ms), which sets how many it holds. */
  readonly #latency = new Map<string, number>()
  /** Opened secrets' signers, by sealed secret. */
  readonly #signers = new Map<string, Webhook>()
  #sending = 0
  #held = 0
  readonly #leaseMs: number
  /** The guard with host names' answers kept for a second (`cachedLookup`). */
  readonly #guard: UrlGuardOptions
  #running = false
  /** Whether a claim may find something: a poke, the idle wait, or room where more was due. */
  #claimWanted = true
  /** The last claim took as many as it asked for. */
  #claimFull = false
  #unrecorded: {
    attempt: RecordedAttempt
    resolve: (recorded: boolean) => void
    reject: (e: unknown) => void
  }[] = []
  #flushing: Promise<void> | null = null
  #loop: Promise<void> | null = null
  #wake: (() => void) | null = null

  constructor(store: Store, options: WebhookDispatcherOptions) {
    this.#store = store
    this.#o = {
      timeoutMs: 10_000,
      concurrency: 64,
      perSubscription: 8,
      maxHeld: 256,
      maxRounds: 32,
      retryScheduleMs: RETRY_SCHEDULE_MS,
      idleMs: 1000,
      ...options,
    }
    // A held delivery may wait up to one timeout for a slot before its attempt begins (one that
    // waited longer is given back unattempted, #startWaiting); the lease covers that wait, the
    // attempt and recording its outcome. A dead server's deliveries come back when their leases
    // end: 25 s after it died with the default timeout.
    this.#leaseMs = this.#o.timeoutMs * 2 + 5000
    this.#guard = { ...this.#o.guard, lookup: cachedLookup(this.#o.guard.lookup ?? systemLookup, 1000) }
  }

  /** Starts sending until `stop`. */
  start(): void {
    if (this.#running) return
    this.#running = true
    this.#loop = this.#run()
  }

  /** Looks for due deliveries now rather than after the idle wait. */
  poke(): void {
    this.#claimWanted = true
    this.#wake?.()
  }

  /** Stops claiming, and waits for the attempts in flight (each ends by its timeout). */
  async stop(): Promise<void> {
    this.#running = false
    this.#wake?.()
    await this.#loop
    while (this.#tasks.size > 0) await Promise.all(this.#tasks)
  }

  /**
   * How many of a subscription's deliveries this process may hold: one round of slots, or for a
   * receiver that answers fast as many rounds as it can send in a quarter of a timeout (so none
   * waits anywhere near long enough to be given back), up to `maxRounds`.
   */
  #cap(subscriptionId: string): number {
    const { perSubscription, maxRounds, timeoutMs, maxHeld } = this.#o
    const latency = this.#latency.get(subscriptionId)
    if (latency === undefined) return perSubscription
    const rounds = Math.floor(timeoutMs / 4 / Math.max(latency, 1))
    // Never half the process's room: the others' deliveries are claimed beside it.
    return Math.max(perSubscription, Math.min(perSubscription * Math.min(maxRounds, rounds), maxHeld / 2))
  }

  #queue(subscriptionId: string): SubscriptionQueue {
    let queue = this.#subs.get(subscriptionId)
    if (!queue) {
      queue = { waiting: [], sending: new Set(), held: 0, more: false }
      this.#subs.set(subscriptionId, queue)
    }
    return queue
  }

  async #run(): Promise<void> {
    while (this.#running) {
      if (this.#claimWanted && this.#held < this.#o.maxHeld) {
        this.#claimWanted = false
        await this.#claim()
      }
      await this.#startWaiting()
      // Opened secrets are kept while there is sending to do, not for ever.
      if (this.#held === 0) this.#signers.clear()
      // Waits for a poke or the idle look, unless a claim is wanted and there is room for it. A
      // wanted claim with no room waits too, until a held delivery is let go (`#forget` wakes
      // it): looping on would never leave the microtask queue, so no answer could come in to
      // make room. Under a burst that held every slot, it once stopped the whole process (REST
      // included) until leases went stale: 1 to 10 s at a time.
      if (this.#running && !(this.#claimWanted && this.#held < this.#o.maxHeld)) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            this.#claimWanted = true
            resolve()
          }, this.#o.idleMs)
          this.#wake = () => {
            clearTimeout(timer)
            resolve()
          }
        })
        this.#wake = null
      }
    }
    // Stopping: what waits was never attempted; its leases go back at once.
    const left: ClaimedDelivery[] = []
    for (const queue of this.#subs.values()) {
      for (const w of queue.waiting.splice(0)) {
        this.#forget(w.item)
        left.push(w.item)
      }
    }
    await this.#releaseUnattempted(left)
  }

  /** Leases due deliveries for the room this process has, each subscription up to its cap. */
  async #claim(): Promise<void> {
    const limit = this.#o.maxHeld - this.#held
    const rooms = new Map<string, number>()
    const busy: string[] = []
    for (const [id, queue] of this.#subs) {
      const room = this.#cap(id) - queue.held
      if (room > 0) rooms.set(id, room)
      else busy.push(id)
    }
    // Subscriptions held nowhere here but known to answer fast get their room too.
    for (const id of this.#latency.keys()) {
      const cap = this.#cap(id)
      if (!this.#subs.has(id) && cap > this.#o.perSubscription) rooms.set(id, cap)
    }
    try {
      const items = await claimDeliveries(this.#store.db, {
        limit,
        perSubscription: this.#o.perSubscription,
        leaseMs: this.#leaseMs,
        busy,
        rooms,
      })
      this.#claimFull = items.length >= limit
      const claimedAt = performance.now()
      const got = new Map<string, number>()
      for (const item of items) {
        const queue = this.#queue(item.subscriptionId)
        queue.waiting.push({ item, claimedAt })
        queue.held++
        this.#held++
        got.set(item.subscriptionId, (got.get(item.subscriptionId) ?? 0) + 1)
      }
      for (const [id, n] of got) {
        this.#subs.get(id)!.more = n >= (rooms.get(id) ?? this.#o.perSubscription)
      }
    } catch (err) {
      this.#o.logger.error({ err }, 'webhook claim failed')
    }
  }

  /**
   * Starts waiting deliveries while slots are free, a subscription at a time in turn, each
   * subscription's in its order and at most `perSubscription` of one at once; a subscription at
   * its limit never holds up the others. One that waited so long its lease could run out before
   * its attempt ends is given back unattempted.
   */
  async #startWaiting(): Promise<void> {
    const stale: ClaimedDelivery[] = []
    const now = performance.now()
    const latest = now - (this.#leaseMs - this.#o.timeoutMs - 5000)
    for (const [id, queue] of this.#subs) {
      while (queue.waiting.length > 0 && queue.waiting[0]!.claimedAt < latest) {
        const w = queue.waiting.shift()!
        this.#forget(w.item)
        stale.push(w.item)
      }
      // A receiver that answered fast and now hangs: what it holds beyond one more round goes
      // back now rather than when it has waited a whole timeout, and it holds one round from here.
      const oldest = Math.min(...queue.sending)
      const latency = this.#latency.get(id) ?? 0
      if (queue.waiting.length > this.#o.perSubscription && now - oldest > Math.max(1000, 10 * latency)) {
        this.#latency.set(id, now - oldest)
        for (const w of queue.waiting.splice(this.#o.perSubscription)) {
          this.#forget(w.item)
          stale.push(w.item)
        }
      }
    }
    let started = true
    while (started && this.#sending < this.#o.concurrency) {
      started = false
      for (const queue of this.#subs.values()) {
        if (this.#sending >= this.#o.concurrency) break
        if (queue.waiting.length > 0 && queue.sending.size < this.#o.perSubscription) {
          this.#begin(queue, queue.waiting.shift()!.item)
          started = true
        }
      }
    }
    await this.#releaseUnattempted(stale)
  }

  /** Forgets a held delivery (sent and recorded, or given back). */
  #forget(item: ClaimedDelivery): void {
    const queue = this.#subs.get(item.subscriptionId)
    this.#held--
    // A claim wanted while every slot was held can run now.
    if (this.#claimWanted) this.#wake?.()
    if (!queue) return
    queue.held--
    if (queue.held === 0 && queue.waiting.length === 0) this.#subs.delete(item.subscriptionId)
    // Room where more was due, or half the process's room free after a full claim: claim again.
    if (
      (queue.more && queue.held <= this.#cap(item.subscriptionId) / 2) ||
      (this.#claimFull && this.#held <= this.#o.maxHeld / 2)
    ) {
      queue.more = false
      this.#claimFull = false
      this.poke()
    }
  }

  async #releaseUnattempted(items: ClaimedDelivery[]): Promise<void> {
    if (items.length === 0) return
    try {
      await releaseDeliveries(this.#store.db, items)
    } catch (err) {
      // Their leases run out by themselves; only their attempt counts stay one ahead.
      this.#o.logger.error({ err }, 'webhook release failed')
    }
  }

  #begin(queue: SubscriptionQueue, item: ClaimedDelivery): void {
    // Two attempts starting in one millisecond would be one entry: nudge the later.
    let began = performance.now()
    while (queue.sending.has(began)) began += 0.001
    queue.sending.add(began)
    this.#sending++
    // The slot is free again once the exchange ends; the delivery stays held until recorded.
    const freeSlot = () => {
      queue.sending.delete(began)
      this.#sending--
      if (this.#running) void this.#startWaiting()
    }
    const task: Promise<void> = this.#attempt(item, freeSlot)
      .catch((err) => this.#o.logger.error({ err, deliveryId: item.id }, 'webhook attempt failed to record'))
      .finally(() => {
        this.#tasks.delete(task)
        this.#forget(item)
      })
    this.#tasks.add(task)
  }

  async #attempt(item: ClaimedDelivery, freeSlot: () => void): Promise<void> {
    const started = performance.now()
    let status: number | null = null
    let retryAfter: string | null = null
    let snippet: string | null = null
    let error: string | null = null
    try {
      const target = await resolveTarget(item.url, this.#guard)
      const headers = this.#signedHeaders(item, new Date())
      const answer = await postToReceiver(target, headers, item.body, this.#o.timeoutMs)
      status = answer.status
      retryAfter = answer.retryAfter
      snippet = answer.snippet
      if (status < 200 || status >= 300) error = `The receiver answered ${status}.`
    } catch (err) {
      error = err instanceof Error ? err.message : String(err)
    }
    const latencyMs = Math.round(performance.now() - started)
    const previous = this.#latency.get(item.subscriptionId)
    this.#latency.set(
      item.subscriptionId,
      previous === undefined ? latencyMs : previous * 0.7 + latencyMs * 0.3,
    )
    freeSlot()
    const step = nextStep(item.attempts, status, retryAfter, this.#o.retryScheduleMs)
    const recorded = await this.#record(item, {
      responseStatus: status,
      latencyMs,
      snippet,
      error,
      status: step.kind === 'succeeded' ? 'succeeded' : step.kind === 'retry' ? 'pending' : 'failed',
      ...(step.kind === 'retry' && { nextAttemptAt: new Date(Date.now() + step.delayMs) }),
    })
    if (recorded && step.kind === 'give-up') {
      this.#latency.delete(item.subscriptionId)
      await this.#disable(item, step.reason)
    }
    // A retry due before the next idle look is looked for when it is due.
    if (recorded && step.kind === 'retry' && step.delayMs < this.#o.idleMs) {
      setTimeout(() => this.poke(), step.delayMs).unref()
    }
  }

  /** The headers of one attempt, from signers kept per sealed secret (opened once, not per delivery). */
  #signedHeaders(item: ClaimedDelivery, at: Date): Record<string, string> {
    const signer = (sealed: string) => {
      let webhook = this.#signers.get(sealed)
      if (!webhook) {
        if (this.#signers.size >= 1000) this.#signers.clear()
        webhook = new Webhook(this.#o.box.open(sealed))
        this.#signers.set(sealed, webhook)
      }
      return webhook
    }
    return signedHeaders(item, at, signer)
  }

  /**
   * Records an outcome together with the others that finished meanwhile: one statement for a
   * burst of attempts rather than one each, which on the embedded store is what kept a storm of
   * deliveries from crowding out requests. One recording statement runs at a time; outcomes that
   * finish while it runs go together in the next (group commit). An attempt counts as recorded
   * (and its lease as given back) only once its statement has committed.
   */
  #record(delivery: ClaimedDelivery, outcome: AttemptOutcome): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.#unrecorded.push({ attempt: { delivery, outcome }, resolve, reject })
      if (this.#unrecorded.length === 1 && !this.#flushing) setImmediate(() => void this.#flush())
    })
  }

  async #flush(): Promise<void> {
    if (this.#flushing || this.#unrecorded.length === 0) return
    const batch = this.#unrecorded.splice(0)
    this.#flushing = (async () => {
      try {
        const recorded = await recordAttempts(
          this.#store.db,
          batch.map((b) => b.attempt),
        )
        for (const b of batch) b.resolve(recorded.has(b.attempt.delivery.id))
      } catch (error) {
        for (const b of batch) b.reject(error)
      }
    })()
    await this.#flushing
    this.#flushing = null
    if (this.#unrecorded.length > 0) await this.#flush()
  }

  /** Disables the subscription as the system actor; `webhook.disabled` then tells its owners. */
  async #disable(item: ClaimedDelivery, reason: string): Promise<void> {
    await runMutation(
      this.#store.db,
      operations.webhooks.disable,
      { id: item.subscriptionId, reason },
      { householdId: item.householdId, userId: 'system', role: 'owner', scopes: SCOPES, now: new Date() },
    )
    this.#o.logger.warn({ subscriptionId: item.subscriptionId, reason }, 'webhook subscription disabled')
  }
}

/**
 * The Standard Webhooks headers: the event id as `webhook-id`, and one `v1,` signature per live
 * secret (the new and, for 24 hours after a rotation, the old), space-separated as the scheme allows.
 */
export function signedHeaders(
  item: ClaimedDelivery,
  at: Date,
  signer: (sealed: string) => Webhook,
): Record<string, string> {
  const secrets = [item.secretSealed, ...(item.previousSecretSealed ? [item.previousSecretSealed] : [])]
  const signatures = secrets.map((sealed) => signer(sealed).sign(item.eventId, at, item.body))
  return {
    'webhook-id': item.eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  }
}
