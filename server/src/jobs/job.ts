import type { Store, SystemContext } from '@hearth/engine'
import type { Logger } from 'pino'

/** What a run of a job gets. */
export interface JobContext {
  store: Store
  /** The system actor, with this run's `now`. */
  actor: SystemContext
  /** The server's logger, naming the job. */
  logger: Logger
  /** Aborted when the server stops: a long job checks it between steps and returns early. */
  signal: AbortSignal
}

/**
 * Periodic work the server does as the system actor: every `intervalMs` after the previous run
 * ends, and never two runs of one job at once, across every server sharing the store.
 */
export interface Job {
  /** `<noun>.<verb>`: its name in logs and in the lock that keeps runs apart. */
  readonly name: string
  readonly intervalMs: number
  /** Does the work; what it returns (a small summary such as counts) is logged with the run. */
  run(ctx: JobContext): Promise<unknown>
}
