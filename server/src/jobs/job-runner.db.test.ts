import { SCOPES, type SystemContext } from '@hearth/engine'
import { sharedStore } from '@hearth/test'
import pino from 'pino'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import type { Job } from './job.ts'
import { JobRunner } from './job-runner.ts'
import { serverJobs } from './server-jobs.ts'

type LogLine = {
  level: number
  msg: string
  job?: string
  ms?: number
  result?: unknown
  err?: { message: string }
}

/** A logger whose lines the test can read. */
function capturedLogs() {
  const lines: LogLine[] = []
  const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) })
  return { logger, lines }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await sleep(5)
  }
}

/** A runner over this worker's shared store; each test names its jobs uniquely, as they share locks. */
async function runnerOf(jobs: Job[]) {
  const store = await sharedStore()
  const { logger, lines } = capturedLogs()
  return { runner: new JobRunner({ store, logger, jobs }), lines }
}

describe('job runner', () => {
  it('runs a job every interval as the system actor, logs each run, and stops', async () => {
    const name = `test.tick${ulid()}`
    const actors: SystemContext[] = []
    const { runner, lines } = await runnerOf([
      {
        name,
        intervalMs: 20,
        async run({ actor }) {
          actors.push(actor)
          return { runs: actors.length }
        },
      },
    ])
    runner.start()
    await until(() => actors.length >= 3)
    await runner.stop()
    const ran = actors.length
    await sleep(60)
    expect(actors).toHaveLength(ran)
    expect(actors[0]).toMatchObject({ actor: 'system', scopes: SCOPES })
    expect(actors[1]!.now.getTime()).toBeGreaterThan(actors[0]!.now.getTime())
    const mine = lines.filter((l) => l.job === name)
    expect(mine.filter((l) => l.msg === 'job started')).toHaveLength(ran)
    expect(mine.find((l) => l.msg === 'job finished')).toMatchObject({
      ms: expect.any(Number),
      result: { runs: 1 },
    })
  })

  it('logs a failing run and tries again on the next tick', async () => {
    const name = `test.flaky${ulid()}`
    let calls = 0
    const { runner, lines } = await runnerOf([
      {
        name,
        intervalMs: 20,
        async run() {
          calls += 1
          if (calls === 1) throw new Error('the first run fails')
          return 'recovered'
        },
      },
    ])
    runner.start()
    await until(() => lines.some((l) => l.job === name && l.msg === 'job finished'))
    await runner.stop()
    const mine = lines.filter((l) => l.job === name && l.msg !== 'job started')
    expect(mine[0]).toMatchObject({ level: 50, msg: 'job failed', err: { message: 'the first run fails' } })
    expect(mine[1]).toMatchObject({ level: 30, msg: 'job finished', result: 'recovered' })
  })

  it('never starts a run of a job while one is going on', async () => {
    const name = `test.slow${ulid()}`
    let active = 0
    let most = 0
    let runs = 0
    const { runner } = await runnerOf([
      {
        name,
        intervalMs: 60_000,
        async run() {
          active += 1
          most = Math.max(most, active)
          await sleep(50)
          active -= 1
          runs += 1
        },
      },
    ])
    const first = runner.runNow(name)
    const second = runner.runNow(name)
    expect(await Promise.all([first, second])).toEqual(['ran', 'skipped'])
    expect([runs, most]).toEqual([1, 1])
    await runner.stop()
  })

  it('waits on stop for the run in flight, whose signal tells it to finish', async () => {
    const name = `test.long${ulid()}`
    let aborted = false
    const { runner } = await runnerOf([
      {
        name,
        intervalMs: 60_000,
        async run({ signal }) {
          await until(() => signal.aborted)
          await sleep(30)
          aborted = true
        },
      },
    ])
    const run = runner.runNow(name)
    await sleep(10)
    await runner.stop()
    expect(aborted).toBe(true)
    expect(await run).toBe('ran')
  })

  it('refuses two jobs of one name', async () => {
    const job: Job = { name: 'test.twice', intervalMs: 1000, run: async () => null }
    await expect(runnerOf([job, job])).rejects.toThrow('Two jobs are named test.twice')
  })

  // Each job works over the worker's whole shared store, which holds every household the
  // worker's other test files made: seconds alone, a minute or more late in a full run.
  it('runs each of the server’s own jobs on the store', { timeout: 180_000 }, async () => {
    const store = await sharedStore()
    const { logger, lines } = capturedLogs()
    const runner = new JobRunner({ store, logger, jobs: serverJobs(store) })
    expect(runner.jobs.map((j) => j.name)).toEqual(
      expect.arrayContaining(['changeLog.trim', 'idempotencyKeys.purge']),
    )
    for (const job of runner.jobs) expect(await runner.runNow(job.name)).toBe('ran')
    await runner.stop()
    expect(lines.find((l) => l.job === 'changeLog.trim' && l.msg === 'job finished')?.result).toMatchObject({
      rows: expect.any(Number),
      rejections: expect.any(Number),
    })
  })
})
