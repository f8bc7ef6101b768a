import type { Store } from '@hearth/engine'
import { openPostgresStore } from '@hearth/engine/node'
import { TEST_DATABASE_URL } from '@hearth/test'
import pino from 'pino'
import { ulid } from 'ulidx'
import { afterAll, describe, expect, it } from 'vitest'
import type { Job } from './job.ts'
import { JobRunner } from './job-runner.ts'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Two servers' worth of connections to one database: each its own pool, so its own sessions. */
const stores: Store[] = []
async function serverStore(): Promise<Store> {
  const store = await openPostgresStore({ url: TEST_DATABASE_URL!, poolSize: 3 })
  stores.push(store)
  return store
}

afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()))
})

/** A job that records how many of its runs overlap, whichever runner runs it. */
function watchedJob(name: string) {
  const stats = { active: 0, most: 0, runs: [] as string[] }
  const job = (runner: string): Job => ({
    name,
    intervalMs: 5,
    async run() {
      stats.active += 1
      stats.most = Math.max(stats.most, stats.active)
      await sleep(40)
      stats.active -= 1
      stats.runs.push(runner)
    },
  })
  return { stats, job }
}

describe.skipIf(!TEST_DATABASE_URL)('job runner on PostgreSQL', () => {
  it('never runs one job on two servers at the same moment', async () => {
    const { stats, job } = watchedJob(`test.shared${ulid()}`)
    const logger = pino({ level: 'silent' })
    const a = new JobRunner({ store: await serverStore(), logger, jobs: [job('a')] })
    const b = new JobRunner({ store: await serverStore(), logger, jobs: [job('b')] })
    a.start()
    b.start()
    await sleep(1000)
    await Promise.all([a.stop(), b.stop()])
    expect(stats.most).toBe(1)
    expect(stats.runs.length).toBeGreaterThanOrEqual(5)
  })

  it('answers skipped to the second server while the first runs the job', async () => {
    const { stats, job } = watchedJob(`test.skip${ulid()}`)
    const logger = pino({ level: 'silent' })
    const a = new JobRunner({ store: await serverStore(), logger, jobs: [job('a')] })
    const b = new JobRunner({ store: await serverStore(), logger, jobs: [job('b')] })
    const first = a.runNow(job('a').name)
    await sleep(10)
    expect(await b.runNow(job('b').name)).toBe('skipped')
    expect(await first).toBe('ran')
    // Once the first run ended and released its lock, the other server may run it.
    expect(await b.runNow(job('b').name)).toBe('ran')
    expect(stats.runs).toEqual(['a', 'b'])
  })

  it('runs different jobs on two servers side by side', async () => {
    const one = watchedJob(`test.one${ulid()}`)
    const two = watchedJob(`test.two${ulid()}`)
    let together = 0
    const logger = pino({ level: 'silent' })
    const probe = (job: Job): Job => ({
      ...job,
      async run(ctx) {
        const pending = job.run(ctx)
        await sleep(10)
        if (one.stats.active + two.stats.active === 2) together += 1
        return pending
      },
    })
    const a = new JobRunner({ store: await serverStore(), logger, jobs: [probe(one.job('a'))] })
    const b = new JobRunner({ store: await serverStore(), logger, jobs: [probe(two.job('b'))] })
    await Promise.all([a.runNow(one.job('a').name), b.runNow(two.job('b').name)])
    expect(together).toBeGreaterThan(0)
  })
})
