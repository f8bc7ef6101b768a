import { describe, expect, it, vi } from 'vitest'
import { CostLimiter, type CostLimits, type ExpensiveTurn } from './cost-limits.ts'

const limits: CostLimits = {
  expensivePerMember: 1,
  expensivePerHousehold: 2,
  expensiveQueueMs: 60_000,
  expensiveRestPercent: 0,
  yieldMs: 60_000,
}

/** Starts a call's wait for its turn and records when it gets one. */
function call(limiter: CostLimiter, householdId: string, userId: string, log: string[], name: string) {
  return limiter.turn(householdId, userId).then((turn) => {
    log.push('retryAfterSeconds' in turn ? `${name} refused` : name)
    return turn as ExpensiveTurn
  })
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5))

describe('CostLimiter', () => {
  it('runs one expensive call per member at a time; the next waits its turn', async () => {
    const limiter = new CostLimiter(limits)
    const log: string[] = []
    const first = call(limiter, 'h', 'reader', log, 'first')
    const second = call(limiter, 'h', 'reader', log, 'second')
    await tick()
    expect(log).toEqual(['first'])
    ;(await first).end()
    await tick()
    expect(log).toEqual(['first', 'second'])
    ;(await second).end()
  })

  it('runs two per household; a third member waits, another household does not', async () => {
    const limiter = new CostLimiter(limits)
    const log: string[] = []
    const a = call(limiter, 'h', 'a', log, 'a')
    const b = call(limiter, 'h', 'b', log, 'b')
    const c = call(limiter, 'h', 'c', log, 'c')
    const other = call(limiter, 'elsewhere', 'd', log, 'other')
    await tick()
    expect(log).toEqual(['a', 'b', 'other'])
    ;(await b).end()
    await tick()
    expect(log).toEqual(['a', 'b', 'other', 'c'])
    for (const t of [a, c, other]) (await t).end()
  })

  it('lets a later member pass one whose own call still runs', async () => {
    const limiter = new CostLimiter(limits)
    const log: string[] = []
    const a1 = call(limiter, 'h', 'a', log, 'a1')
    const b1 = call(limiter, 'h', 'b', log, 'b1')
    const a2 = call(limiter, 'h', 'a', log, 'a2')
    const c1 = call(limiter, 'h', 'c', log, 'c1')
    await tick()
    ;(await b1).end()
    await tick()
    // a2 is first in line, but a's first call still runs: c1 takes the household's free place.
    expect(log).toEqual(['a1', 'b1', 'c1'])
    ;(await a1).end()
    await tick()
    expect(log).toEqual(['a1', 'b1', 'c1', 'a2'])
    for (const t of [a2, c1]) (await t).end()
  })

  it('refuses a call that gets no place within the queue time, with seconds to wait', async () => {
    const limiter = new CostLimiter({ ...limits, expensiveQueueMs: 20 })
    const log: string[] = []
    const first = call(limiter, 'h', 'reader', log, 'first')
    const refused = await limiter.turn('h', 'reader')
    expect(refused).toEqual({ retryAfterSeconds: 1 })
    ;(await first).end()
  })

  it('rests a household after an expensive call before the next, and waits out the rest rather than refusing', async () => {
    const limiter = new CostLimiter({ ...limits, expensiveQueueMs: 1, expensiveRestPercent: 100 })
    const log: string[] = []
    const first = await call(limiter, 'h', 'a', log, 'first')
    await new Promise((resolve) => setTimeout(resolve, 60))
    first.end()
    // Another member's call: a place is free, but the household rests as long as the first ran.
    const second = call(limiter, 'h', 'b', log, 'second')
    await tick()
    expect(log).toEqual(['first'])
    await second
    expect(log).toEqual(['first', 'second'])
    ;(await second).end()
  })

  it('admits a call whose household’s rest ends between its check and its place in the queue', async () => {
    const limiter = new CostLimiter({ ...limits, expensiveRestPercent: 100 })
    const log: string[] = []
    const first = await call(limiter, 'h', 'a', log, 'first')
    await tick()
    first.end()
    // The call's check sees the rest; every clock read after it (as the call joins the queue)
    // sees it over, as when the process is preempted between the two.
    const now = performance.now.bind(performance)
    let reads = 0
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => now() + (++reads > 1 ? 60_000 : 0))
    let second: Promise<ExpensiveTurn>
    try {
      second = call(limiter, 'h', 'b', log, 'second')
    } finally {
      clock.mockRestore()
    }
    await tick()
    expect(log).toEqual(['first', 'second'])
    ;(await second).end()
  })

  it('holds an expensive step back while a cheaper request is in flight, and lets it go when that ends', async () => {
    const limiter = new CostLimiter(limits)
    let finish = () => {}
    const cheap = limiter.track({} as never, () => new Promise<void>((resolve) => (finish = resolve)))
    let stepped = false
    // The expensive request is tracked too, as every request is; it takes itself out of the count.
    const step = limiter
      .track({} as never, () => limiter.asExpensive(() => limiter.yieldToCheaper()))
      .then(() => (stepped = true))
    await tick()
    expect(stepped).toBe(false)
    finish()
    await cheap
    await step
    expect(stepped).toBe(true)
  })

  it('holds an expensive call back no longer in all than it has run, however busy the server stays', async () => {
    const limiter = new CostLimiter(limits)
    // A request that never ends, and yieldMs of a minute: without the budget every step would wait it out.
    void limiter.track({} as never, () => new Promise<void>(() => {}))
    const step = () =>
      limiter.yieldingPlugin.transformResult({ result: { rows: [] }, queryId: { queryId: 'q' } })
    const steps = await limiter.paced(async () => {
      let n = 0
      for (; n < 5; n++) {
        const until = performance.now() + 10
        while (performance.now() < until) {}
        await step()
      }
      return n
    })
    expect(steps).toBe(5)
  })
})
