import {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimDeliveries,
  operations,
  type RecordedAttempt,
  recordAttempts,
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
  readonly #perSub = new Map<string, number>()
  #running = false
  #unrecorded: {
    attempt: RecordedAttempt
    resolve: (recorded: boolean) => void
    reject: (e: unknown) => void
  }[] = []
  #loop: Promise<void> | null = null
  #wake: (() => void) | null = null

  constructor(store: Store, options: WebhookDispatcherOptions) {
    this.#store = store
    this.#o = {
      timeoutMs: 10_000,
      concurrency: 16,
      perSubscription: 4,
      retryScheduleMs: RETRY_SCHEDULE_MS,
      idleMs: 1000,
      ...options,
    }
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
    while (this.#running) {
      let claimed = 0
      const free = this.#o.concurrency - this.#inFlight.size
      if (free > 0) {
        try {
          const busy = [...this.#perSub].filter(([, n]) => n >= this.#o.perSubscription).map(([id]) => id)
          const items = await claimDeliveries(this.#store.db, {
            limit: free,
            perSubscription: this.#o.perSubscription,
            leaseMs: this.#o.timeoutMs * 2 + 5000,
            busy,
          })
          claimed = items.length
          for (const item of items) this.#begin(item)
        } catch (err) {
          this.#o.logger.error({ err }, 'webhook claim failed')
        }
      }
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
   * deliveries from crowding out requests.
   */
  #record(delivery: ClaimedDelivery, outcome: AttemptOutcome): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.#unrecorded.push({ attempt: { delivery, outcome }, resolve, reject })
      if (this.#unrecorded.length === 1) setImmediate(() => void this.#flush())
    })
  }

  async #flush(): Promise<void> {
    const batch = this.#unrecorded.splice(0)
    try {
      const recorded = await recordAttempts(
        this.#store.db,
        batch.map((b) => b.attempt),
      )
      for (const b of batch) b.resolve(recorded.has(b.attempt.delivery.id))
    } catch (error) {
      for (const b of batch) b.reject(error)
    }
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
