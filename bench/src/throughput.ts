/**
 * `npm run bench:throughput [-- --store pglite|postgres|both] [--seconds 10] [--writers 32]`:
 * acknowledged REST writes per second, as a service that outgrows one machine would load it.
 * `writers` concurrent clients create tags over keep-alive HTTP for `seconds`, spread over ten
 * households and then all in one, against the server in a process of its own (as `npm start` runs
 * it). Beside each figure, in the same run and with the same harness: the requests per second of
 * a route that answers without the store (a request with no key, refused with 401), the ceiling
 * of this machine's HTTP path with the generator on the same cores. `--profile DIR` has the
 * server write a CPU profile (open it in Chrome's DevTools) to DIR. `--haproxy` (PostgreSQL) also
 * runs the same loads through haproxy (Debian's, with deploy/cluster's configuration) in front of
 * one instance and then of two instances on the same database.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { Store } from '@hearth/engine'
import { monotonicFactory } from 'ulidx'
import { type BenchOwner, newBenchKey, newBenchOwner } from './bench-owner.ts'
import { openScratchStore, type StoreName } from './bench-store.ts'
import { startServer, stopServer } from './server-process.ts'

const HOUSEHOLDS = 10
/** Targets from the cluster issue, on PostgreSQL: over ten households, and in one. */
const TARGETS = {
  spread: { perSecond: 1000, p99Ms: 50 },
  one: { perSecond: 800, p99Ms: 80 },
}

const id = monotonicFactory()

interface Owner {
  householdId: string
  token: string
}

interface Load {
  perSecond: number
  p50Ms: number
  p99Ms: number
  failed: number
  /** The server process's CPU time (user and system) per answered request: steadier than rates under load. */
  serverCpuMs: number
}

/** A process's CPU time so far in ms, from /proc (Linux), or NaN where there is none. */
function cpuMsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    // utime and stime, the 14th and 15th fields of the line, in clock ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return Number.NaN
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      store: { type: 'string', default: 'both' },
      seconds: { type: 'string', default: '10' },
      writers: { type: 'string', default: '32' },
      profile: { type: 'string' },
      haproxy: { type: 'boolean', default: false },
    },
  })
  const stores = (values.store === 'both' ? ['postgres', 'pglite'] : [values.store]) as StoreName[]
  const seconds = Number(values.seconds)
  const writers = Number(values.writers)
  const lines: string[][] = []
  for (const name of stores)
    lines.push(...(await benchStore(name, seconds, writers, values.profile, values.haproxy)))
  const header = [
    'store',
    'load',
    'writes/s',
    'p50 ms',
    'p99 ms',
    'failed',
    'server CPU ms/req',
    'vs ceiling',
    'target',
  ]
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)))
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
  console.log(`${writers} writers, ${seconds} s each, generator on the same cores`)
  console.log(fmt(header))
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`)
  for (const line of lines) console.log(fmt(line))
}

/** Ten owners, each with a household, and a key for each writer, written before the server starts. */
async function seedOwners(store: Store, writers: number): Promise<{ spread: Owner[]; one: Owner[] }> {
  const owners: BenchOwner[] = []
  for (let i = 0; i < HOUSEHOLDS; i++) owners.push(await newBenchOwner(store, `Household ${i}`))
  // Each writer is a program with a key of its own, as limits are per key: spread over the ten
  // households, and all in the first.
  const keyed = async (owner: BenchOwner) => ({
    householdId: owner.householdId,
    token: await newBenchKey(store, owner.userId),
  })
  const spread: Owner[] = []
  const one: Owner[] = []
  for (let w = 0; w < writers; w++) {
    spread.push(await keyed(owners[w % HOUSEHOLDS]!))
    one.push(await keyed(owners[0]!))
  }
  return { spread, one }
}

async function benchStore(
  name: StoreName,
  seconds: number,
  writers: number,
  profileDir?: string,
  haproxy = false,
): Promise<string[][]> {
  // Seeded here, then closed and handed to the server.
  const { store, serverEnv, drop } = await openScratchStore(name, 'throughput', { durable: false })
  let server: ChildProcess | null = null
  let second: ChildProcess | null = null
  try {
    const owners = await seedOwners(store, writers)
    await store.close()
    // `--profile DIR`: the server writes a CPU profile of the whole run there when it stops.
    const started = await startServer(
      serverEnv,
      undefined,
      'ignore',
      profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
    )
    server = started.child
    const tagOf = (owner: Owner) => () => ({
      method: 'POST',
      path: `/households/${owner.householdId}/tags`,
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `tag ${id()}` }),
      expect: 201,
    })
    /** The three loads on `base`, served by the processes `pids`: the ceiling, then the writes. */
    const loads = async (pids: number[], base: URL) => {
      const agent = new Agent({ keepAlive: true, maxSockets: writers })
      try {
        return {
          ceiling: await load(pids, agent, base, writers, seconds, () => REFUSED),
          spread: await load(pids, agent, base, writers, seconds, (w) => tagOf(owners.spread[w]!)()),
          one: await load(pids, agent, base, writers, seconds, (w) => tagOf(owners.one[w]!)()),
        }
      } finally {
        agent.destroy()
      }
    }
    const { ceiling, spread, one } = await loads([server.pid!], new URL(started.url))

    // The same loads through haproxy, in front of one instance and then of two (PostgreSQL only:
    // an embedded store's data folder is one process's). The targets are for one instance
    // reached directly, so these rows carry none.
    const balanced: [string, Load][] = []
    if (haproxy && name === 'postgres') {
      const other = await startServer(serverEnv, undefined, 'ignore')
      second = other.child
      for (const instances of [[started], [started, other]]) {
        const front = await behindHaproxy(instances.map((i) => new URL(i.url)))
        try {
          const via = await loads(
            instances.map((i) => i.child.pid!),
            front.url,
          )
          const label = `${instances.length} instance${instances.length === 1 ? '' : 's'} behind haproxy`
          balanced.push(
            [`${label}, ceiling (401)`, via.ceiling],
            [`${label}, POST tags over ${HOUSEHOLDS} households`, via.spread],
            [`${label}, POST tags in one household`, via.one],
          )
        } finally {
          await front.stop()
        }
      }
    }

    const row = (label: string, l: Load, target?: { perSecond: number; p99Ms: number }) => [
      name,
      label,
      l.perSecond.toFixed(0),
      l.p50Ms.toFixed(1),
      l.p99Ms.toFixed(1),
      String(l.failed),
      l.serverCpuMs.toFixed(3),
      `${(l.perSecond / ceiling.perSecond).toFixed(2)}x`,
      target && name === 'postgres'
        ? `>= ${target.perSecond}/s, p99 < ${target.p99Ms} ms: ${
            l.perSecond >= target.perSecond && l.p99Ms < target.p99Ms && l.failed === 0 ? 'met' : 'MISSED'
          }`
        : '',
    ]
    return [
      row('ceiling: GET without a key (401)', ceiling),
      row(`POST tags over ${HOUSEHOLDS} households`, spread, TARGETS.spread),
      row('POST tags in one household', one, TARGETS.one),
      ...balanced.map(([label, l]) => row(label, l)),
    ]
  } finally {
    if (second) await stopServer(second)
    if (server) await stopServer(server)
    await drop()
  }
}

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}

/**
 * haproxy in the foreground in front of `instances`, with the configuration deploy/cluster/cluster.sh
 * writes for the cluster (health checks on /readyz, least connections), once its front answers.
 */
async function behindHaproxy(instances: URL[]): Promise<{ url: URL; stop: () => Promise<void> }> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'hearth-bench-haproxy-'))
  const script = new URL('../../deploy/cluster/cluster.sh', import.meta.url).pathname
  const config = execFileSync(
    'bash',
    [script, 'haproxy-config', String(port), ...instances.map((u) => u.port)],
    {
      encoding: 'utf8',
    },
  )
  writeFileSync(join(dir, 'haproxy.cfg'), config)
  const child = spawn('haproxy', ['-f', join(dir, 'haproxy.cfg')], { stdio: ['ignore', 'ignore', 'inherit'] })
  const url = new URL(`http://127.0.0.1:${port}`)
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  }
  // Ready once every instance has passed its first health check and the front answers.
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(new URL('/healthz', url)).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) {
      await new Promise((r) => setTimeout(r, 1500))
      return { url, stop }
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  await stop()
  throw new Error(`haproxy on port ${port} did not answer /healthz in 10 s`)
}

interface Call {
  method: string
  path: string
  headers: Record<string, string>
  body?: string
  expect: number
}

/** The ceiling's call: a route that answers without the store, a request with no key (401). */
const REFUSED: Call = { method: 'GET', path: '/households/current', headers: {}, expect: 401 }

/** `writers` loops, each sending its next call once the last one answered, for `seconds`. */
async function load(
  pids: readonly number[],
  agent: Agent,
  base: URL,
  writers: number,
  seconds: number,
  callOf: (writer: number) => Call,
): Promise<Load> {
  // A short warm-up, unmeasured, so the server's plans and connections are in place.
  await run(agent, base, writers, 1, callOf)
  const cpu = () => pids.reduce((sum, pid) => sum + cpuMsOf(pid), 0)
  const cpuBefore = cpu()
  const measured = await run(agent, base, writers, seconds, callOf)
  const answered = measured.perSecond * seconds
  return { ...measured, serverCpuMs: (cpu() - cpuBefore) / Math.max(1, answered) }
}

async function run(
  agent: Agent,
  base: URL,
  writers: number,
  seconds: number,
  callOf: (writer: number) => Call,
): Promise<Omit<Load, 'serverCpuMs'>> {
  const samples: number[] = []
  let failed = 0
  const started = performance.now()
  const until = started + seconds * 1000
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      while (performance.now() < until) {
        const call = callOf(writer)
        const t0 = performance.now()
        const status = await send(agent, base, call)
        if (status === call.expect) samples.push(performance.now() - t0)
        else failed++
      }
    }),
  )
  const elapsed = (performance.now() - started) / 1000
  samples.sort((a, b) => a - b)
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? 0
  return { perSecond: samples.length / elapsed, p50Ms: at(0.5), p99Ms: at(0.99), failed }
}

function send(agent: Agent, base: URL, call: Call): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        method: call.method,
        path: call.path,
        headers: call.body
          ? { ...call.headers, 'content-length': Buffer.byteLength(call.body) }
          : call.headers,
      },
      (res) => {
        res.resume()
        res.once('end', () => resolve(res.statusCode ?? 0))
        res.once('error', () => resolve(0))
      },
    )
    req.once('error', () => resolve(0))
    req.end(call.body)
  })
}

await main()
