import { execFile, execFileSync } from 'node:child_process'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { parseClusterUrl, urlFor } from '@hearth/engine/node'
import type { RunningServer } from '@hearth/server'
import pg from 'pg'
import pino from 'pino'
import { ulid } from 'ulidx'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { warnIfNotDurable } from '../../server/src/durability-check.ts'
import { startReceiver } from '../http/webhook-receiver.ts'
import { newOwner, startTestServer, TEST_WEBHOOKS, type TestMember } from '../src/index.ts'
import { TEST_DATABASE_URL } from '../src/variant.ts'
import { closeDevices, eventually, expectConverged, newDevice } from '../sync/devices.ts'

/**
 * A PostgreSQL cluster that fails over (docs/operations.md, "A cluster that fails over"): the
 * monitor and two data nodes of deploy/cluster/cluster.sh, two Hearth instances on the multi-host
 * URL with a device on each, and writes over REST while the primary is stopped with
 * `pg_autoctl stop --fast`. It builds its own cluster whatever the store, so it runs in the
 * PostgreSQL phase only; it fails rather than skips there when `HEARTH_REQUIRE_CLUSTER` is set
 * (CI) and pg_autoctl is missing.
 */
const hasAutoctl = (() => {
  try {
    execFileSync('sh', ['-c', 'command -v pg_autoctl'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()
const enabled = Boolean(TEST_DATABASE_URL) && (hasAutoctl || Boolean(process.env.HEARTH_REQUIRE_CLUSTER))

const script = join(import.meta.dirname, '..', '..', 'deploy', 'cluster', 'cluster.sh')
const dir = join(tmpdir(), `hearth-cluster-${process.pid}-${Date.now().toString(36)}`)
const base = 40_000 + Math.floor(Math.random() * 2_000) * 10
const env = { ...process.env, HEARTH_CLUSTER_DIR: dir, HEARTH_CLUSTER_PORT: String(base) }
const run = promisify(execFile)
const cluster = (...args: string[]) => run(script, args, { env, maxBuffer: 16 * 1024 * 1024 })

/** The node (1 or 2) that is primary now, or null. */
async function primaryNode(url: string): Promise<1 | 2 | null> {
  for (const n of [1, 2] as const) {
    const client = new pg.Client({
      connectionString: urlFor(parseClusterUrl(url), { host: '127.0.0.1', port: base + n }),
    })
    client.on('error', () => {})
    try {
      await client.connect()
      const { rows } = await client.query('select pg_is_in_recovery() as standby')
      if (!rows[0].standby) return n
    } catch {
    } finally {
      await client.end().catch(() => {})
    }
  }
  return null
}

/** Every day from `from` to `to`, both included, as YYYY-MM-DD. */
function daysBetween(from: string, to: string): string[] {
  const days: string[] = []
  for (
    let d = new Date(`${from}T00:00:00Z`);
    d.toISOString().slice(0, 10) <= to;
    d.setUTCDate(d.getUTCDate() + 1)
  )
    days.push(d.toISOString().slice(0, 10))
  return days
}

describe.skipIf(!enabled)('a PostgreSQL cluster that fails over', () => {
  let url = ''
  let server: RunningServer | undefined
  /** A second instance on the same cluster, as behind a load balancer. */
  let other: RunningServer | undefined
  let owner: TestMember

  /** Rows read from the primary of now, directly. */
  const storedRows = async <T>(text: string, values: unknown[]): Promise<T[]> => {
    const node = await primaryNode(url)
    if (node === null) throw new Error('the cluster has no primary')
    const direct = new pg.Client({
      connectionString: urlFor(parseClusterUrl(url), { host: '127.0.0.1', port: base + node }),
    })
    await direct.connect()
    try {
      return (await direct.query(text, values)).rows as T[]
    } finally {
      await direct.end()
    }
  }

  beforeAll(async () => {
    if (!hasAutoctl) throw new Error('HEARTH_REQUIRE_CLUSTER is set but pg_autoctl is not installed')
    const { stdout } = await cluster('start-postgres')
    url = stdout.trim().split('\n').at(-1)!
    expect(url).toMatch(/^postgres:\/\/.+,.+target_session_attrs=read-write/)
    // Deliveries retry for about half a minute, longer than a failover takes.
    const webhooks = { ...TEST_WEBHOOKS, retryScheduleMs: [500, 1000, 2000, 4000, 8000, 16_000] }
    server = await startTestServer({ databaseUrl: url, webhooks }, { ownStore: true })
    other = await startTestServer({ databaseUrl: url, webhooks }, { ownStore: true })
    owner = await newOwner(server)
  }, 400_000)

  afterAll(async () => {
    await closeDevices()
    await other?.close().catch(() => {})
    await server?.close().catch(() => {})
    await cluster('stop').catch(() => {})
    await rm(dir, { recursive: true, force: true })
  }, 120_000)

  it('answers writes again within 15 s of losing its primary, loses no acknowledged write, never answers 500, its devices converge, and webhooks and jobs happen once', async () => {
    const acknowledged: { id: string; at: number }[] = []
    const refused: { status: number; code?: string; retryAfter: string | null }[] = []
    const unexpected: string[] = []
    let stopping = false
    let n = 0
    const writer = async () => {
      while (!stopping) {
        const sentAt = Date.now()
        try {
          const res = await fetch(`${server!.url}/households/${owner.householdId}/tags`, {
            method: 'POST',
            headers: { authorization: `Bearer ${owner.api.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ name: `tag ${n++} ${sentAt}` }),
            signal: AbortSignal.timeout(60_000),
          })
          const body = (await res.json()) as { id?: string; code?: string }
          if (res.status === 201) acknowledged.push({ id: body.id!, at: sentAt })
          else if (res.status === 503) {
            refused.push({ status: 503, code: body.code, retryAfter: res.headers.get('retry-after') })
            await new Promise((r) => setTimeout(r, 100))
          } else unexpected.push(`${res.status} ${JSON.stringify(body)}`)
        } catch (error) {
          unexpected.push(`no answer: ${(error as Error).message}`)
        }
      }
    }
    // What a load balancer sees: /readyz, polled as haproxy does.
    const readiness = new Set<number>()
    const pollReadiness = async () => {
      while (!stopping) {
        readiness.add(await fetch(`${server!.url}/readyz`).then((r) => r.status))
        await new Promise((r) => setTimeout(r, 200))
      }
    }
    const writers = [...Array.from({ length: 8 }, writer), pollReadiness()]
    const until = async (what: string, ok: () => boolean, ms: number) => {
      const deadline = Date.now() + ms
      while (!ok()) {
        if (Date.now() > deadline) {
          const state = await cluster('state').then(
            (r) => r.stdout,
            (e: Error) => e.message,
          )
          throw new Error(
            `gave up waiting: ${what} (${acknowledged.length} acknowledged, ${refused.length} refused, ` +
              `unexpected: ${unexpected.slice(0, 3).join(' | ')})\n${state}`,
          )
        }
        await new Promise((r) => setTimeout(r, 50))
      }
    }
    const durabilityWarnings = () =>
      warnIfNotDurable(server!.store, pino({ level: 'silent' }), {
        durability: true,
        dataDir: 'memory://',
        databaseUrl: url,
      })
    // A device on each instance: a change pushed through one reaches the other through the
    // database's notifications (or the hub's clock poll), before and after the failover.
    // Every tag written, by REST or by a device, is announced to a webhook receiver; and a daily
    // bill started ten days ago is booked by the recurrence job, run during and after.
    const receiver = await startReceiver()
    const h = `/households/${owner.householdId}`
    const subscription = await owner.api.post(`${h}/webhooks/subscriptions`, {
      url: receiver.url,
      eventTypes: ['tag.created'],
    })
    expect(subscription.status).toBe(201)
    const checking = (await owner.api.post(`${h}/accounts`, { name: 'Checking', type: 'cash' })).body as {
      id: string
    }
    const today = new Date().toISOString().slice(0, 10)
    const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10)
    const bill = await owner.api.post(`${h}/recurrences`, {
      name: 'Daily bill',
      accountId: checking.id,
      amountCents: -500,
      frequency: 'daily',
      startDate: tenDaysAgo,
    })
    expect(bill.status).toBe(201)
    // A bill added with a start in the past is booked from its next run date on.
    const firstBooked = bill.body.nextRunDate as string
    const a = await newDevice(server!, owner)
    const b = await newDevice(other!, owner)
    await Promise.all([a.sync.whenSynced(), b.sync.whenSynced()])
    const before = ulid()
    await a.mutate.tags.create({ id: before, name: 'before the failover' })
    await eventually(async () => expect(await b.query.tags.get({ id: before })).toBeTruthy(), 60_000)
    try {
      // Commits wait for the synchronous standby: no warning at start.
      expect(await durabilityWarnings()).toEqual([])
      await until('writes before the failover', () => acknowledged.length >= 50, 60_000)
      const primary = await primaryNode(url)
      expect(primary).not.toBeNull()
      await cluster('stop-node', String(primary))
      const stoppedAt = Date.now()
      // The job runs while there is no primary: it fails or waits, and books nothing twice.
      const jobDuring = server!.jobs.runNow('recurrences.materialize')
      // Made on device B while there is no primary: it waits in B's queue and goes out after.
      const during = ulid()
      await b.mutate.tags.create({ id: during, name: 'during the failover' })
      // The first write sent after the primary was gone, and acknowledged.
      await until(
        'a write acknowledged after the failover',
        () => acknowledged.some((a) => a.at > stoppedAt),
        60_000,
      )
      const recoveredAt = Math.min(...acknowledged.filter((a) => a.at > stoppedAt).map((a) => a.at))
      const recoveredBy = acknowledged.length
      await until('more writes on the new primary', () => acknowledged.length >= recoveredBy + 50, 60_000)
      stopping = true
      await Promise.all(writers)

      const newPrimary = await primaryNode(url)
      expect(newPrimary).toBe(primary === 1 ? 2 : 1)
      const rows = await storedRows<{ id: string }>('select id from tags where household_id = $1', [
        owner.householdId,
      ])
      const stored = new Set(rows.map((r) => r.id))
      const lost = acknowledged.filter((a) => !stored.has(a.id))
      console.info(
        `failover: writes answered again ${recoveredAt - stoppedAt} ms after the primary stopped; ` +
          `${acknowledged.length} writes acknowledged, ${lost.length} lost, ${refused.length} refused with 503`,
      )
      expect(unexpected).toEqual([])
      expect(lost).toEqual([])
      expect(recoveredAt - stoppedAt).toBeLessThan(15_000)
      for (const r of refused) {
        expect(r.code).toBe('STORE_UNAVAILABLE')
        expect(Number(r.retryAfter)).toBeGreaterThan(0)
      }
      // The new primary has no standby yet: its commits do not wait for one, and the check says so.
      expect((await durabilityWarnings()).join(' ')).toMatch(/failover can lose acknowledged writes/)
      // Both devices converge with the new primary, each through its own instance.
      const after = ulid()
      await a.mutate.tags.create({ id: after, name: 'after the failover' })
      await eventually(async () => {
        expect(await b.query.tags.get({ id: after })).toBeTruthy()
        expect(await a.query.tags.get({ id: during })).toBeTruthy()
      }, 60_000)
      await expectConverged(server!, owner.householdId, [a, b], 60_000)

      // Jobs once: the run during the failover and one on each instance at once after it book
      // each day's bill once.
      console.info(`failover: the recurrence job run during the failover ${await jobDuring}`)
      const outcomes = await Promise.all([
        server!.jobs.runNow('recurrences.materialize'),
        other!.jobs.runNow('recurrences.materialize'),
      ])
      expect(outcomes).toContain('ran')
      const bills = await storedRows<{ date: string; n: number }>(
        `select date::text as date, count(*)::int as n from transactions
         where household_id = $1 and account_id = $2 and source = 'recurring' group by 1 order by 1`,
        [owner.householdId, checking.id],
      )
      expect(bills.map((r) => r.date)).toEqual(daysBetween(firstBooked, today))
      expect(bills.filter((r) => r.n !== 1)).toEqual([])

      // Webhooks once: every stored tag is announced, each by one event. A send whose outcome was
      // being recorded as the primary stopped is sent again with the same webhook-id, which is
      // what a receiver removes duplicates by; it is counted, not refused.
      const tags = new Set(
        (
          await storedRows<{ id: string }>('select id from tags where household_id = $1', [owner.householdId])
        ).map((r) => r.id),
      )
      const announced = () => new Set(receiver.received.map((r) => r.payload.data.tag.id as string))
      await eventually(async () => expect(announced().size).toBe(tags.size), 120_000)
      expect([...announced()].filter((id) => !tags.has(id))).toEqual([])
      const idsByTag = new Map<string, Set<string>>()
      for (const r of receiver.received) {
        const tag = r.payload.data.tag.id as string
        idsByTag.set(tag, (idsByTag.get(tag) ?? new Set()).add(r.id))
      }
      expect([...idsByTag.entries()].filter(([, ids]) => ids.size !== 1)).toEqual([])
      receiver.verifyAll(subscription.body.secret)
      console.info(
        `failover: ${tags.size} tags announced by ${receiver.received.length} sends ` +
          `(${receiver.received.length - tags.size} sent again with the same webhook-id)`,
      )
      // The instance said it could not write while there was no primary, and says it can again.
      expect([...readiness].sort()).toEqual([200, 503])
      await eventually(async () => expect((await fetch(`${server!.url}/readyz`)).status).toBe(200), 15_000)
    } finally {
      stopping = true
      await Promise.all(writers)
    }
  }, 420_000)
})
