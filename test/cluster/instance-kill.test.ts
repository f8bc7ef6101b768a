import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Hearth } from '@hearth/client'
import type { RunningServer } from '@hearth/server'
import pg from 'pg'
import { ulid } from 'ulidx'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newOwner, startTestServer, type TestMember } from '../src/index.ts'
import { TEST_DATABASE_URL } from '../src/variant.ts'
import { closeDevices, eventually, expectConverged, newDevice } from '../sync/devices.ts'

/**
 * Two Hearth instances, each its own process, behind haproxy (the layout of
 * deploy/cluster/cluster.sh, on one PostgreSQL database of its own): one is killed with SIGKILL
 * while devices sync and a program writes through the load balancer. Its devices move to the
 * other instance and resume from their own version (no reset), every acknowledged write is
 * stored, and every replica converges. PostgreSQL phase only; with `HEARTH_REQUIRE_CLUSTER` set
 * (CI) it fails rather than skips when haproxy is missing.
 */
const hasHaproxy = (() => {
  try {
    execFileSync('sh', ['-c', 'command -v haproxy'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()
const enabled = Boolean(TEST_DATABASE_URL) && (hasHaproxy || Boolean(process.env.HEARTH_REQUIRE_CLUSTER))
const serverMain = join(import.meta.dirname, '..', '..', 'server', 'src', 'main.ts')
const CLUSTER_SCRIPT = join(import.meta.dirname, '..', '..', 'deploy', 'cluster', 'cluster.sh')

/** A port nobody listens on now. */
async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise((resolve) => probe.close(resolve))
  return port
}

/** `npm start`'s entry in a process of its own on `databaseUrl`; resolves with its URL. */
async function startInstance(
  databaseUrl: string,
  port: number,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', serverMain], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const url = await new Promise<string>((resolve, reject) => {
    let text = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString()
      const match = /listening on (http:\/\/\S+)/.exec(text)
      if (match) resolve(match[1]!)
    })
    child.once('exit', (code) => reject(new Error(`a Hearth instance exited with ${code}`)))
  })
  return { child, url }
}

describe.skipIf(!enabled)('an instance killed behind the load balancer', () => {
  const database = `hearth_kill_${process.pid}_${Date.now().toString(36)}`
  const admin = () => new pg.Client({ connectionString: TEST_DATABASE_URL })
  const dir = mkdtempSync(join(tmpdir(), 'hearth-haproxy-'))
  let databaseUrl = ''
  let server: RunningServer | undefined
  const instances: ChildProcess[] = []
  let haproxy: ChildProcess | undefined
  let front = ''
  let owner: TestMember

  beforeAll(async () => {
    if (!hasHaproxy) throw new Error('HEARTH_REQUIRE_CLUSTER is set but haproxy is not installed')
    const client = admin()
    await client.connect()
    await client.query(`create database ${database}`)
    await client.end()
    const url = new URL(TEST_DATABASE_URL!)
    url.pathname = `/${database}`
    databaseUrl = url.toString()
    // This process's own instance migrates the database and makes the household; it is also
    // where the test reads the truth from.
    server = await startTestServer({ databaseUrl }, { ownStore: true })
    owner = await newOwner(server)
    const ports = [await freePort(), await freePort()]
    for (const port of ports) instances.push((await startInstance(databaseUrl, port)).child)
    const frontPort = await freePort()
    const config = join(dir, 'haproxy.cfg')
    // deploy/cluster/cluster.sh's own configuration, with quicker health checks.
    writeFileSync(
      config,
      execFileSync('bash', [CLUSTER_SCRIPT, 'haproxy-config', String(frontPort), ...ports.map(String)], {
        env: { ...process.env, HEARTH_CLUSTER_CHECK_INTERVAL: '500ms' },
      }),
    )
    haproxy = spawn('haproxy', ['-db', '-f', config], { stdio: 'ignore' })
    front = `http://127.0.0.1:${frontPort}`
    await eventually(async () => expect((await fetch(`${front}/readyz`)).status).toBe(200), 60_000)
  }, 300_000)

  afterAll(async () => {
    await closeDevices()
    haproxy?.kill('SIGKILL')
    for (const child of instances) child.kill('SIGKILL')
    await server?.close().catch(() => {})
    const client = admin()
    await client.connect()
    await client.query(`drop database if exists ${database} with (force)`).catch(() => {})
    await client.end()
    rmSync(dir, { recursive: true, force: true })
  }, 120_000)

  it('moves its devices to the other instance without a reset, loses no acknowledged write, and converges', async () => {
    const acknowledged: string[] = []
    const statuses = new Map<number, number>()
    let stopping = false
    let n = 0
    const writer = async () => {
      while (!stopping) {
        try {
          const res = await fetch(`${front}/households/${owner.householdId}/tags`, {
            method: 'POST',
            headers: { authorization: `Bearer ${owner.api.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ name: `rest tag ${n++}` }),
            signal: AbortSignal.timeout(30_000),
          })
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
          const body = (await res.json().catch(() => ({}))) as { id?: string }
          if (res.status === 201) acknowledged.push(body.id!)
          else await new Promise((r) => setTimeout(r, 50))
        } catch {
          // The load balancer dropped the connection to the killed instance: not acknowledged.
        }
      }
    }
    // Three devices through the load balancer: leastconn puts them on both instances.
    const devices: Hearth[] = []
    const resets: string[] = []
    const dropped = new Set<number>()
    for (let i = 0; i < 3; i++) {
      const device = await newDevice({ url: front } as RunningServer, owner, { reconnectMaxMs: 300 })
      await device.sync.whenSynced()
      device.on('reset', (e) => resets.push(`device ${i}: ${e.reason}`))
      device.on('reconnecting', () => dropped.add(i))
      devices.push(device)
    }
    const tag = (d: Hearth, name: string) => d.mutate.tags.create({ id: ulid(), name: `${name} ${ulid()}` })
    const writers = [writer(), writer()]
    try {
      for (const [i, d] of devices.entries()) await tag(d, `before ${i}`)
      await eventually(() => expect(acknowledged.length).toBeGreaterThanOrEqual(20), 60_000)

      instances[0]!.kill('SIGKILL')
      // Made while the instance is gone: they wait in the queues and go out after the move.
      for (const [i, d] of devices.entries()) await tag(d, `during ${i}`)
      const acknowledgedAtKill = acknowledged.length
      await eventually(
        () => expect(acknowledged.length).toBeGreaterThanOrEqual(acknowledgedAtKill + 20),
        60_000,
      )
      await eventually(() => {
        for (const d of devices) expect(d.sync.status.state).toBe('online')
      }, 60_000)
      for (const [i, d] of devices.entries()) await tag(d, `after ${i}`)
      stopping = true
      await Promise.all(writers)

      // The killed instance held some of the devices: they lost their socket and came back.
      expect(dropped.size).toBeGreaterThan(0)
      expect(resets).toEqual([])
      const stored = new Set(
        (
          await server!.store.db
            .selectFrom('tags')
            .select('id')
            .where('household_id', '=', owner.householdId)
            .execute()
        ).map((r) => r.id),
      )
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([])
      // Hearth itself never answered 500; a request cut off by the kill is haproxy's 502/503.
      expect([...statuses.keys()].filter((s) => s >= 500 && s !== 502 && s !== 503)).toEqual([])
      await expectConverged(server!, owner.householdId, devices, 60_000)
    } finally {
      stopping = true
      await Promise.all(writers)
    }
  }, 300_000)
})
