import { SCOPES, type Store, type SystemContext } from '@hearth/engine'
import type { Logger } from 'pino'
import type { Job } from './job.ts'
import { type JobLock, jobLockFor } from './job-lock.ts'

/** How one run ended: `skipped` when the job was already running, here or on another server. */
export type JobOutcome = 'ran' | 'failed' | 'skipped'

/** What the runner needs. */
export interface JobRunnerOptions {
  store: Store
  logger: Logger
  jobs: readonly Job[]
  /** Defaults to the store's kind of lock (`jobLockFor`). */
  lock?: JobLock
}

/**
 * Runs each job every `intervalMs` after its previous run ends, as the system actor. A run is
 * logged when it starts and ends (with its time and result, or its error); an error never
 * escapes, and the next tick simply tries again. `stop` cancels what is scheduled and waits for
 * runs in flight.
 */
export class JobRunner {
  readonly #store: Store
  readonly #logger: Logger
  readonly #jobs: ReadonlyMap<string, Job>
  readonly #lock: JobLock
  readonly #timers = new Map<string, NodeJS.Timeout>()
  readonly #inFlight = new Map<string, Promise<JobOutcome>>()
  readonly #stopping = new AbortController()
  #started = false

  constructor(options: JobRunnerOptions) {
    const jobs = new Map<string, Job>()
    for (const job of options.jobs) {
      if (jobs.has(job.name)) throw new Error(`Two jobs are named ${job.name}`)
      if (!(job.intervalMs > 0)) throw new Error(`Job ${job.name} needs a positive interval`)
      jobs.set(job.name, job)
    }
    this.#store = options.store
    this.#logger = options.logger
    this.#jobs = jobs
    this.#lock = options.lock ?? jobLockFor(options.store)
  }

  /** The jobs it runs, by name. */
  get jobs(): readonly Job[] {
    return [...this.#jobs.values()]
  }

  /** Schedules every job's first run one interval from now. */
  start(): void {
    if (this.#started || this.#stopping.signal.aborted) return
    this.#started = true
    for (const job of this.#jobs.values()) this.#schedule(job)
  }

  /** Runs a job now, outside its schedule, unless a run of it is already going on. */
  runNow(name: string): Promise<JobOutcome> {
    const job = this.#jobs.get(name)
    if (!job) throw new Error(`No job is named ${name}`)
    const running = this.#inFlight.get(name)
    if (running) return running.then(() => 'skipped')
    const run = this.#run(job).finally(() => this.#inFlight.delete(name))
    this.#inFlight.set(name, run)
    return run
  }

  /** Cancels every scheduled run, tells running jobs to stop, and waits for them to end. */
  async stop(): Promise<void> {
    this.#stopping.abort()
    for (const timer of this.#timers.values()) clearTimeout(timer)
    this.#timers.clear()
    await Promise.all(this.#inFlight.values())
  }

  #schedule(job: Job): void {
    if (this.#stopping.signal.aborted) return
    const timer = setTimeout(async () => {
      this.#timers.delete(job.name)
      await this.runNow(job.name)
      this.#schedule(job)
    }, job.intervalMs)
    // Scheduled work alone must not keep the process alive.
    timer.unref()
    this.#timers.set(job.name, timer)
  }

  async #run(job: Job): Promise<JobOutcome> {
    const logger = this.#logger.child({ job: job.name })
    const actor: SystemContext = { actor: 'system', scopes: SCOPES, now: new Date() }
    const started = performance.now()
    const ms = () => Math.round(performance.now() - started)
    try {
      const outcome = await this.#lock.withLock(job.name, () => {
        logger.info('job started')
        return job.run({ store: this.#store, actor, logger, signal: this.#stopping.signal })
      })
      if (!outcome.ran) {
        logger.debug('job skipped: a run of it is going on elsewhere')
        return 'skipped'
      }
      logger.info({ ms: ms(), result: outcome.value }, 'job finished')
      return 'ran'
    } catch (err) {
      logger.error({ err, ms: ms() }, 'job failed')
      return 'failed'
    }
  }
}
