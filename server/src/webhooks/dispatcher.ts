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
import { resolveTarget, type UrlGuardOptions } from './url-guard.ts'

/** How the dispatcher sends. */
export interface WebhookDispatcherOptions {
  box: SecretBox
  guard: UrlGuardOptions
  logger: Logger
  /** Per attempt, the whole exchange; 10 s. */
  timeoutMs?: number
  /** Attempts in flight at once in this process; 16. */
  concurrency?: number
  /** Attempts in flight to one subscription from this process; 4. */
  perSubscription?: number
  /**
   * Deliveries of one subscription held at once (in flight and waiting their turn) for each one
   * that may be in flight; 1. Claiming for every free slot at once costs one leasing statement for
   * a burst of deliveries rather than one each. More than 1 holds more per statement but lengthens
   * the lease (a dead server's deliveries come back later): with 4, the kill test's retry storm
   * ran past its time limit under load.
   */
  prefetch?: number
  /** Waits between retries; `RETRY_SCHEDULE_MS`. */
  retryScheduleMs?: readonly number[]
  idleMs?: number
}

/**
 * Sends due webhook deliveries, many at once, each with its own timeout, so a slow or dead
 * receiver holds only its own few slots and never another subscription, household or request.
 * Deliveries are leased from the store (`claimDeliveries`), so servers sharing it send each once.
 */
export class WebhookDispatcher {
  readonly #store: Store
  readonly #o: Required<WebhookDispatcherOptions>
  readonly #inFlight = new Map<string, Promise<void>>()
  /** Deliveries in flight, per subscription. */
  readonly #perSub = new Map<string, number>()
  /** Leased deliveries waiting for a slot, in the order claimed (each subscription's order). */
  #waiting: { item: ClaimedDelivery; claimedAt: number }[] = []
  /** Deliveries held (in flight or waiting), per subscription. */
  readonly #held = new Map<string, number>()
  readonly #leaseMs: number
  #running = false
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
      concurrency: 16,
      perSubscription: 4,
      prefetch: 1,
      retryScheduleMs: RETRY_SCHEDULE_MS,
      idleMs: 1000,
      ...options,
    }
    // A held delivery may wait for its subscription's slots (each attempt ends by its timeout)
    // before its own attempt; the lease covers both, with room to record the outcome. One that
    // waited longer than that allows is given back unattempted (#startWaiting). A dead server's
    // deliveries come back when their leases end: 25 s after it died with the default timeout.
    this.#leaseMs = this.#o.timeoutMs * (this.#o.prefetch + 1) + 5000
  }

  /** Starts sending until `stop`. */
  start(): void {
    if (this.#running) return
    this.#running = true
    this.#loop = this.#run()
  }

  /** Looks for due deliveries now rather than after the idle wait. */
  poke(): void {
    this.#wake?.()
  }

  /** Stops claiming, and waits for the attempts in flight (each ends by its timeout). */
  async stop(): Promise<void> {
    this.#running = false
    this.#wake?.()
    await this.#loop
    await Promise.all(this.#inFlight.values())
  }

  async #run(): Promise<void> {
    const { concurrency, perSubscription, prefetch } = this.#o
    const heldPerSub = perSubscription * prefetch
    while (this.#running) {
      let claimed = 0
      // Claim when fewer than a round of slots' worth wait, up to `prefetch` rounds held.
      const room = concurrency * prefetch - this.#inFlight.size - this.#waiting.length
      if (this.#waiting.length < concurrency && room > 0) {
        try {
          const busy = [...this.#held].filter(([, n]) => n >= heldPerSub).map(([id]) => id)
          const items = await claimDeliveries(this.#store.db, {
            limit: room,
            perSubscription: heldPerSub,
            leaseMs: this.#leaseMs,
            busy,
          })
          claimed = items.length
          const claimedAt = performance.now()
          for (const item of items) {
            this.#held.set(item.subscriptionId, (this.#held.get(item.subscriptionId) ?? 0) + 1)
            this.#waiting.push({ item, claimedAt })
          }
        } catch (err) {
          this.#o.logger.error({ err }, 'webhook claim failed')
        }
      }
      await this.#startWaiting()
      if (claimed === 0 && this.#running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.#o.idleMs)
          this.#wake = () => {
            clearTimeout(timer)
            resolve()
          }
        })
        this.#wake = null
      }
    }
    // Stopping: what waits was never attempted; its leases go back at once.
    const left = this.#waiting.splice(0)
    for (const w of left) this.#release(w.item)
    await this.#releaseUnattempted(left.map((w) => w.item))
  }

  /**
   * Starts waiting deliveries while slots are free, each subscription's in its order and at most
   * `perSubscription` of one at once; a subscription at its limit never holds up the others. One
   * that waited so long its lease could run out before its attempt ends is given back unattempted.
   */
  async #startWaiting(): Promise<void> {
    const stale: ClaimedDelivery[] = []
    const latest = performance.now() - (this.#leaseMs - this.#o.timeoutMs - 5000)
    const keep: { item: ClaimedDelivery; claimedAt: number }[] = []
    for (const w of this.#waiting) {
      if (w.claimedAt < latest) {
        stale.push(w.item)
        this.#release(w.item)
      } else if (
        this.#inFlight.size < this.#o.concurrency &&
        (this.#perSub.get(w.item.subscriptionId) ?? 0) < this.#o.perSubscription
      ) {
        this.#begin(w.item)
      } else keep.push(w)
    }
    this.#waiting = keep
    await this.#releaseUnattempted(stale)
  }

  /** Forgets a held delivery. */
  #release(item: ClaimedDelivery): void {
    const left = (this.#held.get(item.subscriptionId) ?? 1) - 1
    if (left === 0) this.#held.delete(item.subscriptionId)
    else this.#held.set(item.subscriptionId, left)
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

  #begin(item: ClaimedDelivery): void {
    this.#perSub.set(item.subscriptionId, (this.#perSub.get(item.subscriptionId) ?? 0) + 1)
    const attempt = this.#attempt(item)
      .catch((err) => this.#o.logger.error({ err, deliveryId: item.id }, 'webhook attempt failed to record'))
      .finally(() => {
        this.#inFlight.delete(item.id)
        const left = (this.#perSub.get(item.subscriptionId) ?? 1) - 1
        if (left === 0) this.#perSub.delete(item.subscriptionId)
        else this.#perSub.set(item.subscriptionId, left)
        this.#release(item)
        if (this.#running) void this.#startWaiting()
        this.poke()
      })
    this.#inFlight.set(item.id, attempt)
  }

  async #attempt(item: ClaimedDelivery): Promise<void> {
    const started = performance.now()
    let status: number | null = null
    let retryAfter: string | null = null
    let snippet: string | null = null
    let error: string | null = null
    try {
      const target = await resolveTarget(item.url, this.#o.guard)
      const headers = signedHeaders(this.#o.box, item, new Date())
      const answer = await postToReceiver(target, headers, item.body, this.#o.timeoutMs)
      status = answer.status
      retryAfter = answer.retryAfter
      snippet = answer.snippet
      if (status < 200 || status >= 300) error = `The receiver answered ${status}.`
    } catch (err) {
      error = err instanceof Error ? err.message : String(err)
    }
    const latencyMs = Math.round(performance.now() - started)
    const step = nextStep(item.attempts, status, retryAfter, this.#o.retryScheduleMs)
    const recorded = await this.#record(item, {
      responseStatus: status,
      latencyMs,
      snippet,
      error,
      status: step.kind === 'succeeded' ? 'succeeded' : step.kind === 'retry' ? 'pending' : 'failed',
      ...(step.kind === 'retry' && { nextAttemptAt: new Date(Date.now() + step.delayMs) }),
    })
    if (recorded && step.kind === 'give-up') await this.#disable(item, step.reason)
    // A retry due before the next idle look is looked for when it is due.
    if (recorded && step.kind === 'retry' && step.delayMs < this.#o.idleMs) {
      setTimeout(() => this.poke(), step.delayMs).unref()
    }
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
export function signedHeaders(box: SecretBox, item: ClaimedDelivery, at: Date): Record<string, string> {
  const secrets = [item.secretSealed, ...(item.previousSecretSealed ? [item.previousSecretSealed] : [])]
  const signatures = secrets.map((sealed) => new Webhook(box.open(sealed)).sign(item.eventId, at, item.body))
  return {
    'webhook-id': item.eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  }
}
