import { AsyncLocalStorage } from 'node:async_hooks'
import { authorize, costOf, type Operation, type Store } from '@hearth/engine'
import type { Context, Handler, MiddlewareHandler } from 'hono'
import type { KyselyPlugin } from 'kysely'
import { positiveIntegersFromEnv } from '../sync/socket-limits.ts'
import { type AppEnv, householdContext } from './env.ts'
import { problem } from './problem.ts'

/** How many expensive calls run at once, and how they share the process with cheap ones (per instance). */
export interface CostLimits {
  /** Expensive calls one member runs at once in one household. */
  expensivePerMember: number
  /** Expensive calls one household runs at once. */
  expensivePerHousehold: number
  /** How long an expensive call waits for its turn before it is refused with 429, in milliseconds. */
  expensiveQueueMs: number
  /**
   * After an expensive call that took T, the household's next one starts no sooner than T × this
   * ÷ 100 later: 100 keeps a household's expensive work to at most half of the process's time.
   */
  expensiveRestPercent: number
  /** How long an expensive call holds back, at each step, while cheaper requests are in flight, in milliseconds. */
  yieldMs: number
}

/** The defaults, documented in docs/api/README.md (Cost limits). */
export const DEFAULT_COST_LIMITS: CostLimits = {
  expensivePerMember: 1,
  expensivePerHousehold: 2,
  expensiveQueueMs: 2000,
  expensiveRestPercent: 100,
  yieldMs: 200,
}

/** The longest rest a household takes after an expensive call, in milliseconds. */
export const MAX_REST_MS = 10_000

const VARIABLES: Record<keyof CostLimits, string> = {
  expensivePerMember: 'HEARTH_EXPENSIVE_PER_MEMBER',
  expensivePerHousehold: 'HEARTH_EXPENSIVE_PER_HOUSEHOLD',
  expensiveQueueMs: 'HEARTH_EXPENSIVE_QUEUE_MS',
  expensiveRestPercent: 'HEARTH_EXPENSIVE_REST_PERCENT',
  yieldMs: 'HEARTH_EXPENSIVE_YIELD_MS',
}

/** Reads the limits from the environment; a bad value stops start-up naming the variable. */
export function costLimitsFromEnv(env: NodeJS.ProcessEnv): CostLimits {
  return positiveIntegersFromEnv(DEFAULT_COST_LIMITS, VARIABLES, env)
}

/** One household's expensive calls: how many run, whose, and when the next may start. */
interface HouseholdTurns {
  running: number
  byMember: Map<string, number>
  /** The next call starts no sooner than this (performance.now()): the rest after the last ones. */
  restUntil: number
  /** Calls waiting for their turn, first come first served. */
  waiting: Waiter[]
  /** Wakes the queue when the rest ends. */
  timer?: NodeJS.Timeout
  /** How long the household's last expensive call took, in milliseconds (for Retry-After). */
  lastMs: number
}

/** How an expensive call yields: `step` between its statements. */
interface Pace {
  step(): Promise<void>
}

interface Waiter {
  userId: string
  admit: () => void
}

/** A call's turn: `end` it when the call is done, answered or failed. */
export interface ExpensiveTurn {
  end(): void
}

/**
 * Decides when expensive calls (an operation's declared cost, `expensive`) run: a few at a time
 * per member and per household, first come first served, each household resting between them so
 * its expensive work takes at most a share of the process; a call that cannot start within the
 * queue time is refused with 429 `TOO_MANY_EXPENSIVE_REQUESTS` and `Retry-After`. Cheap and
 * read-heavy calls are never held; while any is in flight, an expensive call holds back at each
 * of its steps (`yieldToCheaper`), so a household's reads keep their latency.
 */
export class CostLimiter {
  private readonly households = new Map<string, HouseholdTurns>()
  private cheapInFlight = 0
  private readonly quiet: (() => void)[] = []

  constructor(readonly limits: CostLimits = DEFAULT_COST_LIMITS) {}

  /**
   * Waits for an expensive call's turn; answers how many seconds to wait instead when none comes
   * within the queue time.
   */
  async turn(householdId: string, userId: string): Promise<ExpensiveTurn | { retryAfterSeconds: number }> {
    const turns = this.turnsOf(householdId)
    if (turns.waiting.length === 0 && this.mayStart(turns, userId)) this.take(turns, userId)
    else if (!(await this.wait(turns, userId))) {
      this.forget(householdId, turns)
      return { retryAfterSeconds: this.retryAfter(turns) }
    }
    const started = performance.now()
    let ended = false
    return {
      end: () => {
        if (ended) return
        ended = true
        const now = performance.now()
        turns.running--
        const mine = (turns.byMember.get(userId) ?? 1) - 1
        if (mine === 0) turns.byMember.delete(userId)
        else turns.byMember.set(userId, mine)
        turns.lastMs = now - started
        // At most MAX_REST_MS: a call waiting out a rest has not sent its body yet, and a request
        // must arrive whole within HEARTH_REQUEST_TIMEOUT_MS (30 s).
        const rest = Math.min(MAX_REST_MS, ((now - started) * this.limits.expensiveRestPercent) / 100)
        turns.restUntil = Math.max(turns.restUntil, now) + rest
        this.admit(householdId, turns)
      },
    }
  }

  /**
   * Counts every request in flight from its arrival (authentication included), so expensive
   * calls hold back meanwhile; an expensive call takes itself out of the count (`asExpensive`).
   */
  readonly track: MiddlewareHandler<AppEnv> = async (_c, next) => {
    this.cheapInFlight++
    try {
      await next()
    } finally {
      this.settle(-1)
    }
  }

  /** Runs an expensive call's work outside the count of requests it yields to. */
  async asExpensive<T>(work: () => Promise<T>): Promise<T> {
    this.settle(-1)
    try {
      return await work()
    } finally {
      this.cheapInFlight++
    }
  }

  /** The pace of the expensive call running in this async context, if any. */
  private readonly paces = new AsyncLocalStorage<Pace>()

  /** A Kysely plugin that yields to cheaper requests after each statement of an expensive call. */
  readonly yieldingPlugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      await this.paces.getStore()?.step()
      return args.result
    },
  }

  /**
   * Runs an expensive call's work with its pace: at each step it holds back for cheaper requests
   * in flight, but never longer in all than it has run itself, so a call under a steady stream of
   * reads still gets half of its time and finishes in at most about twice its own.
   */
  paced<T>(work: () => Promise<T>): Promise<T> {
    const started = performance.now()
    let held = 0
    const pace: Pace = {
      step: async () => {
        const budget = performance.now() - started - 2 * held
        const before = performance.now()
        await this.yieldToCheaper(Math.min(this.limits.yieldMs, Math.max(0, budget)))
        held += performance.now() - before
      },
    }
    return this.paces.run(pace, async () => {
      await pace.step()
      return work()
    })
  }

  private settle(change: number): void {
    this.cheapInFlight += change
    if (this.cheapInFlight === 0) for (const resolve of this.quiet.splice(0)) resolve()
  }

  /** Yields the process to cheaper requests in flight, for at most `maxMs` (`yieldMs` by default). */
  async yieldToCheaper(maxMs = this.limits.yieldMs): Promise<void> {
    // One turn of the event loop always, so requests that arrived meanwhile are read and counted.
    await new Promise((resolve) => setImmediate(resolve))
    if (this.cheapInFlight === 0 || maxMs <= 0) return
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, maxMs)
      this.quiet.push(() => {
        clearTimeout(timer)
        resolve()
      })
    })
  }

  private mayStart(turns: HouseholdTurns, userId: string): boolean {
    return this.slotFree(turns, userId) && performance.now() >= turns.restUntil
  }

  /** Whether the member and the household run fewer expensive calls than they may. */
  private slotFree(turns: HouseholdTurns, userId: string): boolean {
    return (
      turns.running < this.limits.expensivePerHousehold &&
      (turns.byMember.get(userId) ?? 0) < this.limits.expensivePerMember
    )
  }

  private take(turns: HouseholdTurns, userId: string): void {
    turns.running++
    turns.byMember.set(userId, (turns.byMember.get(userId) ?? 0) + 1)
  }

  /** Queues a call: true once it has its turn, false when the queue time ran out first. */
  private wait(turns: HouseholdTurns, userId: string): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        userId,
        admit: () => {
          clearTimeout(timer)
          resolve(true)
        },
      }
      // Past the queue time, a call still waiting for a place is refused; one whose place is
      // free waits out the household's rest (the pace, not a refusal: preview then commit works).
      const giveUp = () => {
        if (this.slotFree(turns, userId)) {
          timer = setTimeout(giveUp, Math.max(1, turns.restUntil - performance.now()))
          return
        }
        turns.waiting.splice(turns.waiting.indexOf(waiter), 1)
        resolve(false)
      }
      let timer = setTimeout(giveUp, this.limits.expensiveQueueMs)
      turns.waiting.push(waiter)
      this.wake(turns)
    })
  }

  /** Gives turns to waiting calls, then sets the wake for the rest of the queue. */
  private admit(householdId: string, turns: HouseholdTurns): void {
    this.admitInOrder(turns)
    this.wake(turns)
    this.forget(householdId, turns)
  }

  /** Gives turns to waiting calls in order; a member at its limit lets the calls behind it pass. */
  private admitInOrder(turns: HouseholdTurns): void {
    for (const waiter of [...turns.waiting]) {
      if (!this.mayStart(turns, waiter.userId)) continue
      turns.waiting.splice(turns.waiting.indexOf(waiter), 1)
      this.take(turns, waiter.userId)
      waiter.admit()
    }
  }

  /** Seconds until a place may be free: the longest call running so far, at least one. */
  private retryAfter(turns: HouseholdTurns): number {
    const rest = Math.max(0, turns.restUntil - performance.now())
    return Math.max(1, Math.ceil((rest + turns.lastMs) / 1000))
  }

  /** Drops an idle household's record once its rest is over. */
  private forget(householdId: string, turns: HouseholdTurns): void {
    if (turns.running === 0 && turns.waiting.length === 0 && performance.now() >= turns.restUntil) {
      this.households.delete(householdId)
    }
  }

  /** Admits the queue again when the household's rest ends. */
  private wake(turns: HouseholdTurns): void {
    if (turns.waiting.length === 0 || turns.timer) return
    const wait = turns.restUntil - performance.now()
    // Over already: it may have ended after a call was sent to wait for it and before it joined
    // the queue, and no timer would ever admit that call. Whoever waits for a place instead is
    // admitted when a call ends.
    if (wait <= 0) {
      this.admitInOrder(turns)
      return
    }
    turns.timer = setTimeout(() => {
      turns.timer = undefined
      const householdId = [...this.households].find(([, t]) => t === turns)?.[0]
      if (householdId) this.admit(householdId, turns)
    }, wait)
    turns.timer.unref()
  }

  private turnsOf(householdId: string): HouseholdTurns {
    let turns = this.households.get(householdId)
    if (!turns) {
      turns = { running: 0, byMember: new Map(), restUntil: 0, waiting: [], lastMs: 0 }
      this.households.set(householdId, turns)
    }
    return turns
  }
}

/**
 * The answer to an expensive call that got no turn: 429 `TOO_MANY_EXPENSIVE_REQUESTS` with
 * `Retry-After`. The body is left unread (a bank file can be megabytes), so the connection closes.
 */
export function tooManyExpensive(c: Context, retryAfterSeconds: number): Response {
  return problem(c, 429, 'TOO_MANY_EXPENSIVE_REQUESTS', {
    detail: `Your household is running as many expensive requests (bank file imports, rule back-fills, long reports) as it may at once; retry in ${retryAfterSeconds} s.`,
    headers: { 'retry-after': String(retryAfterSeconds), connection: 'close' },
  })
}

/**
 * Serves an operation under the cost limits: a call whose declared cost (for these arguments:
 * a GET's query) is `expensive` is authorized, then waits for its turn (or is refused with 429
 * before its body is read), then runs on a store that yields to cheaper requests after each of
 * its statements; any other call runs as it is.
 */
export function costedHandler(
  limiter: CostLimiter,
  operation: Operation,
  serve: (store: Store) => Handler<AppEnv>,
  store: Store,
): Handler<AppEnv> {
  const plain = serve(store)
  if (operation.level !== 'household' || operation.cost === 'cheap' || operation.cost === 'read-heavy')
    return plain
  // A read yields after each statement; a write does not: its statements run in one transaction,
  // and on PGlite (one connection) the reads it would wait for wait for that transaction.
  // Made at the first expensive call, not at mount: an app built only for its OpenAPI document
  // (rest-names-source.ts) has no store.
  let yielding: Handler<AppEnv> | null = null
  const yieldingHandler = () => {
    yielding ??=
      operation.kind === 'query'
        ? serve({ ...store, db: store.db.withPlugin(limiter.yieldingPlugin) })
        : plain
    return yielding
  }
  return async function costedHandler(c, next) {
    if (costOf(operation, { ...c.req.query() }) !== 'expensive') return plain(c, next)
    const ctx = householdContext(c.var)
    authorize(operation, ctx)
    // Neither waiting nor running, an expensive call is not among the requests others yield to.
    return limiter.asExpensive(async () => {
      const turn = await limiter.turn(ctx.householdId, ctx.userId)
      if ('retryAfterSeconds' in turn) return tooManyExpensive(c, turn.retryAfterSeconds)
      try {
        return await limiter.paced(() => yieldingHandler()(c, next))
      } finally {
        turn.end()
      }
    })
  }
}
