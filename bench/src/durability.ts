/**
 * `npm run bench:durability`: what durable acknowledgements cost on the embedded store
 * (docs/durability.md). Two servers run side by side on this machine's disk, one with
 * `HEARTH_DURABILITY=on` and one `off`, and every measure alternates between them, so both see
 * the same (shared, noisy) machine. The floor is the disk's own append-and-fdatasync: in the
 * bench beside the in-process commits, and in the durable server itself, in place of its WAL's
 * sync, for the REST writes (durable-server.ts), because this virtual disk's sync time depends on
 * the moment it runs. "One fdatasync" for a REST write is then what that floor sync costs the
 * same request in the same process.
 */
import type { ChildProcess } from 'node:child_process'
import { closeSync, cpSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrateToLatest, openPGliteStore, type Store, type WalSyncCounts } from '@hearth/engine'
import { durableStorage } from '@hearth/engine/node'
import { mintApiKey } from '@hearth/server'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { deviceProcess } from './device-process.ts'
import { startServer, stopServer } from './server-process.ts'

const durableServer = new URL('./durable-server.ts', import.meta.url).pathname

/** Sizes, smaller for a quick look: `BENCH_SCALE=0.2 npm run bench:durability`. */
const SCALE = Number(process.env.BENCH_SCALE ?? 1)
const PROCESS_PAIRS = 4
const REST_SAMPLES = PROCESS_PAIRS * Math.max(5, Math.round(100 * SCALE))
const SYNC_SAMPLES = Math.max(10, Math.round(100 * SCALE))
const WRITERS = 16
const STORM_MS = Math.max(1000, Math.round(4000 * SCALE))
const MODES = ['off', 'on'] as const
type Mode = (typeof MODES)[number]
/**
 * REST writes: to the server without durability, and to the durable one with its WAL syncs run,
 * skipped, or replaced by the floor's sync (durable-server.ts).
 */
type RestMode = Mode | 'skip' | 'floor'
const REST_MODES: RestMode[] = ['off', 'on', 'skip', 'floor']
/**
 * A round writes six times, turn about to each server, so both serve as often and every write
 * follows one to the other server: a process that serves more often answers faster (with both
 * servers non-durable, the one taking three writes in four answered 0.27-0.31 ms faster). The
 * server without durability writes three times, the first timed. Every rotation of the round,
 * forwards and backwards, in turn: no mode always follows another.
 */
const REST_ROUND: RestMode[] = ['off', 'on', 'off', 'skip', 'off', 'floor']
const REST_ORDERS: RestMode[][] = REST_ROUND.flatMap((_, k) => {
  const rotation = [...REST_ROUND.slice(k), ...REST_ROUND.slice(0, k)]
  return [rotation, [...rotation].reverse()]
})

const pct = (samples: number[], q: number) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}
const ms = (n: number) => `${n.toFixed(2)} ms`
/** The median of paired differences (each pair measured back to back), robust to the machine's load drifting. */
const pairedP50 = (on: number[], off: number[]) =>
  pct(
    on.map((v, i) => v - off[i]!),
    0.5,
  )

async function main(): Promise<void> {
  const loadAtStart = loadavg()
  const work = mkdtempSync(join(tmpdir(), 'hearth-bench-durability-'))
  const children: ChildProcess[] = []
  try {
    const probe = diskProbe(join(work, 'append.bin'))
    const commits = await storeCommits(work, probe)
    const template = join(work, 'device-template')
    const templateStore = await openPGliteStore({ dataDir: template })
    await migrateToLatest(templateStore.db)
    await templateStore.close()
    let copies = 0
    const deviceFolder = () => {
      const folder = join(work, `device-${copies++}`)
      cpSync(template, join(folder, 'pgdata'), { recursive: true })
      return folder
    }

    const servers = {} as Record<Mode, { url: string; token: string; child: ChildProcess }>
    const tokens = { off: mintApiKey().token, on: mintApiKey().token }
    const startServers = async () => {
      for (const mode of MODES) {
        const started = await startServer(
          {
            HEARTH_DATA_DIR: join(work, `server-${mode}`),
            HEARTH_INIT_OWNER_TOKEN: tokens[mode],
            HEARTH_DURABILITY: mode,
            // Both read the switch, so that both are woken by a line on stdin before each write
            // (a process just woken answers faster); without durability nothing calls fdatasync.
            HEARTH_BENCH_SYNC_SWITCH: '1',
            // The storms write as fast as they can on one key: the bench measures the store, not the limiter.
            HEARTH_RATE_REST_PER_KEY: '100000000',
          },
          durableServer,
          'pipe',
        )
        children.push(started.child)
        servers[mode] = { url: started.url, token: tokens[mode], child: started.child }
      }
    }
    await startServers()
    const write = async (mode: Mode) => {
      const { url, token } = servers[mode]
      const res = await fetch(`${url}/households/current/tags`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `bench ${ulid()}` }),
      })
      if (res.status !== 201) throw new Error(`POST tags: ${res.status} ${await res.text()}`)
      await res.arrayBuffer()
    }

    // Rounds of writes to both servers (REST_ROUND): a write meets the one before's after-effects
    // (its server's work after the answer, the disk's writeback), so the order turns. Two server
    // processes can differ per write on their own by as much as a sync on a fast disk: so the
    // writes are spread over several pairs of fresh server processes, and the sync's own cost is
    // measured within one process, run against skipped and against the floor's sync.
    const rest: Record<RestMode, number[]> = { off: [], on: [], skip: [], floor: [] }
    const restSyncs = { inPlace: 0, pooled: 0 }
    const ownSyncs: number[] = []
    const floorInServer: number[] = []
    for (let pair = 0; pair < PROCESS_PAIRS; pair++) {
      if (pair > 0) {
        for (const mode of MODES) await stopServer(servers[mode].child)
        await startServers()
      }
      let before: WalSyncCounts = { inPlace: 0, pooled: 0 }
      for (let i = 0; i < REST_SAMPLES / PROCESS_PAIRS + 30; i++) {
        if (i === 30) before = await walSyncs(servers.on.child)
        let offTimed = false
        for (const mode of REST_ORDERS[i % REST_ORDERS.length]!) {
          const target: Mode = mode === 'off' ? 'off' : 'on'
          await switchSyncs(servers[target].child, mode === 'on' || mode === 'off' ? 'run' : mode)
          probe.sample(i >= 30)
          const start = performance.now()
          await write(target)
          const timed = mode !== 'off' || !offTimed
          if (mode === 'off') offTimed = true
          if (i >= 30 && timed) rest[mode].push(performance.now() - start)
        }
      }
      await switchSyncs(servers.on.child, 'run')
      const after = await walSyncs(servers.on.child)
      floorInServer.push(...(after.floorMs ?? []))
      ownSyncs.push(...(after.walMs ?? []))
      restSyncs.inPlace += after.inPlace - before.inPlace
      restSyncs.pooled += after.pooled - before.pooled
    }
    probe.close()
    const disk = probe.samples

    const throughput: Record<Mode, number[]> = { off: [], on: [] }
    for (let round = 0; round < 2; round++) {
      for (const mode of MODES) {
        let done = 0
        const until = performance.now() + STORM_MS
        await Promise.all(
          Array.from({ length: WRITERS }, async () => {
            while (performance.now() < until) {
              await write(mode)
              done++
            }
          }),
        )
        throughput[mode].push(done / (STORM_MS / 1000))
      }
    }

    const seen: Record<Mode, number[]> = { off: [], on: [] }
    const devices = {} as Record<
      Mode,
      { a: Awaited<ReturnType<typeof deviceProcess>>; b: Awaited<ReturnType<typeof deviceProcess>> }
    >
    for (const mode of MODES) {
      const env = {
        HEARTH_SERVER_URL: servers[mode].url,
        HEARTH_TOKEN: servers[mode].token,
        HEARTH_HOUSEHOLD: 'current',
      }
      const a = await deviceProcess({ ...env, HEARTH_STORE: deviceFolder() })
      const b = await deviceProcess({ ...env, HEARTH_STORE: deviceFolder() })
      children.push(a.child, b.child)
      devices[mode] = { a, b }
    }
    for (let i = 0; i < SYNC_SAMPLES + 10; i++) {
      for (const mode of i % 2 === 0 ? MODES : [...MODES].reverse()) {
        const { a, b } = devices[mode]
        const id = ulid()
        await b.send({ cmd: 'expect', id })
        const { startedAt } = await a.send<{ startedAt: number }>({ cmd: 'create', id })
        const { at } = await b.send<{ at: number }>({ cmd: 'arrived', id })
        if (i >= 10) seen[mode].push(at - startedAt)
      }
    }

    const diskP50 = pct(disk, 0.5)
    const inSyncs = (n: number) => `${(n / diskP50).toFixed(2)} fdatasyncs`
    const restExtra = pct(rest.on, 0.5) - pct(rest.off, 0.5)
    const restPaired = pairedP50(rest.on, rest.off)
    const restSync = pairedP50(rest.on, rest.skip)
    const restRest = pairedP50(rest.skip, rest.off)
    const restFloor = pairedP50(rest.floor, rest.skip)
    const serverFloor = pct(floorInServer, 0.5)
    // The fdatasync a REST write itself runs: the server's own syncs of its WAL, timed in the
    // server, at the same moments as the writes (the floor's file is another file, synced beside).
    const ownSync = pct(ownSyncs, 0.5)
    const commitPaired = pairedP50(commits.on, commits.off)
    const kept = median(throughput.on) / median(throughput.off)
    const rows = [
      [
        'disk: append 200 B + fdatasync, in the bench before each write',
        `p50 ${ms(diskP50)}, p99 ${ms(pct(disk, 0.99))}`,
        'the floor',
      ],
      [
        'disk: rewrite an 8 kB page + fdatasync, in the bench (as the WAL)',
        `p50 ${ms(pct(probe.pageSamples, 0.5))}, p99 ${ms(pct(probe.pageSamples, 0.99))}`,
        `${(pct(probe.pageSamples, 0.5) / diskP50).toFixed(2)} of the floor`,
      ],
      ...MODES.map((mode) => [
        `store commit in process (insert), durability ${mode}`,
        `p50 ${ms(pct(commits[mode], 0.5))}, p99 ${ms(pct(commits[mode], 0.99))}`,
        '',
      ]),
      [
        'store commit, on minus off (paired p50)',
        `${ms(commitPaired)} (${inSyncs(commitPaired)}); syncs per commit ${commits.syncsPerCommit.toFixed(2)}, in place ${(commits.inPlaceShare * 100).toFixed(0)}%`,
        `${commitPaired <= diskP50 ? 'met' : 'MISSED'} (<= 1 fdatasync)`,
      ],
      [
        'disk: append 200 B + fdatasync, in the server where its WAL sync would run',
        `p50 ${ms(serverFloor)}, p99 ${ms(pct(floorInServer, 0.99))}`,
        'the floor, in place',
      ],
      ...REST_MODES.map((mode) => [
        `REST write (POST tags), durability ${{ off: 'off', on: 'on', skip: 'on, syncs skipped', floor: "on, the floor's sync for the WAL's" }[mode]}`,
        `p50 ${ms(pct(rest[mode], 0.5))}, p99 ${ms(pct(rest[mode], 0.99))}`,
        '',
      ]),
      [
        'REST writes, durability on: WAL syncs run by the server',
        `${((restSyncs.inPlace + restSyncs.pooled) / (rest.on.length + rest.skip.length + rest.floor.length)).toFixed(2)} per write, in place ${(
          (restSyncs.inPlace / Math.max(1, restSyncs.inPlace + restSyncs.pooled)) * 100
        ).toFixed(0)}%`,
        '',
      ],
      [
        "REST writes, durability on: the server's own WAL fdatasync",
        `p50 ${ms(ownSync)} (${inSyncs(ownSync)}), p99 ${ms(pct(ownSyncs, 0.99))}`,
        '',
      ],
      [
        "REST write, the floor's sync minus skipped, one process (paired p50)",
        `${ms(restFloor)} (${(restFloor / serverFloor).toFixed(2)} of the floor in place)`,
        'what one fdatasync costs a REST write',
      ],
      [
        'REST write, syncs run minus skipped, one process (paired p50)',
        `${ms(restSync)} (${(restSync / restFloor).toFixed(2)} of the floor's; its own sync takes ${(ownSync / serverFloor).toFixed(2)} of the floor's)`,
        "durability's own cost, without the noise between processes",
      ],
      [
        'REST write, syncs skipped minus durability off, two processes (paired p50)',
        `${ms(restRest)} (${inSyncs(restRest)})`,
        'the rest: 0 but for the noise between processes',
      ],
      [
        'REST write p50, on minus off',
        `${ms(restExtra)} (${inSyncs(restExtra)}; ${(restExtra / ownSync).toFixed(2)} of its own)`,
        '',
      ],
      [
        'REST write, on minus off, two processes (paired p50)',
        `${ms(restPaired)} (${(restPaired / restFloor).toFixed(2)} of what 1 fdatasync costs it)`,
        `${restPaired <= restFloor ? 'met' : 'MISSED'} (<= 1 fdatasync: the floor's sync in place)`,
      ],
      ...MODES.map((mode) => [
        `change on A seen on B, durability ${mode}`,
        `p50 ${ms(pct(seen[mode], 0.5))}, p99 ${ms(pct(seen[mode], 0.99))}`,
        '',
      ]),
      ...MODES.map((mode) => [
        `${WRITERS} concurrent REST writers, durability ${mode}`,
        `${Math.round(median(throughput[mode]))} writes/s (runs: ${throughput[mode].map(Math.round).join(', ')})`,
        '',
      ]),
      [
        `${WRITERS} writers: on / off`,
        `${(kept * 100).toFixed(0)}%`,
        `${kept >= 0.5 ? 'met' : 'MISSED'} (>= 50%)`,
      ],
    ]
    const load = (at: number[]) => at.map((l) => l.toFixed(2)).join(', ')
    console.log(`load average at start: ${load(loadAtStart)}; at end: ${load(loadavg())}`)
    const header = ['measure', 'figure', 'target']
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
    const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
    console.log(fmt(header))
    console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`)
    for (const row of rows) console.log(fmt(row))
    for (const mode of MODES) {
      await devices[mode].a.send({ cmd: 'close' })
      await devices[mode].b.send({ cmd: 'close' })
    }
  } finally {
    for (const child of children) await stopServer(child)
    rmSync(work, { recursive: true, force: true })
  }
}

/**
 * One small transaction (an insert) on two embedded stores in this process, one durable and one
 * not, alternating: durability's own cost without HTTP, a second process or the server's other
 * work. Also counts the WAL syncs the durable store ran per commit, and how many ran in place.
 */
async function storeCommits(
  work: string,
  probe: ReturnType<typeof diskProbe>,
): Promise<Record<Mode, number[]> & { syncsPerCommit: number; inPlaceShare: number }> {
  const durable = durableStorage(join(work, 'store-on'))
  const stores: Record<Mode, Store> = {
    on: await openPGliteStore({ dataDir: join(work, 'store-on'), durable }),
    off: await openPGliteStore({ dataDir: join(work, 'store-off') }),
  }
  const samples: Record<Mode, number[]> = { off: [], on: [] }
  let before = durable.syncs()
  try {
    for (const mode of MODES)
      await sql`create table bench (id serial primary key, name text)`.execute(stores[mode].db)
    for (let i = 0; i < REST_SAMPLES + 30; i++) {
      if (i === 30) before = durable.syncs()
      for (const mode of i % 2 === 0 ? MODES : [...MODES].reverse()) {
        probe.sample(i >= 30)
        const start = performance.now()
        await stores[mode].db.transaction().execute(async (tx) => {
          await sql`insert into bench (name) values (${`row ${i}`})`.execute(tx)
        })
        if (i >= 30) samples[mode].push(performance.now() - start)
      }
    }
  } finally {
    for (const mode of MODES) await stores[mode].close()
  }
  const after = durable.syncs()
  const inPlace = after.inPlace - before.inPlace
  const syncs = inPlace + after.pooled - before.pooled
  return { ...samples, syncsPerCommit: syncs / REST_SAMPLES, inPlaceShare: syncs ? inPlace / syncs : 0 }
}

/**
 * The disk's own cost: append 200 bytes and fdatasync, as a WAL commit does, on the same file
 * system. Sampled just before every write or commit measured, so the floor's syncs come at the
 * cadence of the syncs set against it. That matters on this machine's virtual disk: syncs back to
 * back take 0.05 ms, syncs a few milliseconds apart 0.1 to 1 ms (p10 to p90), whether the
 * process slept or spun meanwhile; an earlier probe synced twice in a row, and its second sync
 * looked three to eight times faster than the server's. Samples alternate between the append and
 * the WAL's own shape: PostgreSQL rewrites the current 8 kB page of a zero-filled 16 MB segment
 * at each commit and syncs it (here a zero-filled 1 MB file, one page rewritten per sample).
 */
function diskProbe(path: string): {
  sample(keep: boolean): void
  samples: number[]
  pageSamples: number[]
  close(): void
} {
  const fd = openSync(path, 'a')
  const bytes = Buffer.alloc(200, 1)
  const samples: number[] = []
  const pageFd = openSync(`${path}.wal`, 'w+')
  writeSync(pageFd, Buffer.alloc(1 << 20))
  fdatasyncSync(pageFd)
  const page = Buffer.alloc(8192, 2)
  const pageSamples: number[] = []
  let n = 0
  return {
    samples,
    pageSamples,
    sample(keep) {
      const start = performance.now()
      if (n % 2 === 0) {
        writeSync(fd, bytes)
        fdatasyncSync(fd)
        if (keep) samples.push(performance.now() - start)
      } else {
        writeSync(pageFd, page, 0, page.length, (Math.floor(n / 8) * 8192) % (1 << 20))
        fdatasyncSync(pageFd)
        if (keep) pageSamples.push(performance.now() - start)
      }
      n++
    },
    close: () => {
      closeSync(fd)
      closeSync(pageFd)
    },
  }
}

/**
 * Asks a server started from `durable-server.ts` (`ask` writes to its stdin or signals it) and
 * answers the first match of `pattern` in what it then prints.
 */
function answerOf(child: ChildProcess, pattern: RegExp, ask: () => void): Promise<RegExpExecArray> {
  const answer = new Promise<RegExpExecArray>((resolve) => {
    let text = ''
    const onData = (chunk: Buffer) => {
      text += chunk.toString()
      const match = pattern.exec(text)
      if (!match) return
      child.stdout!.off('data', onData)
      resolve(match)
    }
    child.stdout!.on('data', onData)
  })
  ask()
  return answer
}

/** Runs, skips or replaces by the floor's the WAL syncs of a server started from `durable-server.ts`, once it says so. */
async function switchSyncs(child: ChildProcess, mode: 'run' | 'skip' | 'floor'): Promise<void> {
  await answerOf(child, /syncs (run|skip|floor)\n/, () => child.stdin!.write(`${mode}\n`))
}

/** What `durable-server.ts` says of its syncs: counts so far, times since it was last asked. */
type ServerSyncs = WalSyncCounts & { floorMs?: number[]; walMs?: number[] }

/**
 * The WAL syncs a server started from `durable-server.ts` has run so far, and the blocking WAL
 * syncs and floor syncs it timed since the last call.
 */
async function walSyncs(child: ChildProcess): Promise<ServerSyncs> {
  const [, json] = await answerOf(child, /wal-syncs (.*)\n/, () => child.kill('SIGUSR2'))
  return JSON.parse(json!) ?? { inPlace: 0, pooled: 0 }
}

function median(values: number[]): number {
  return pct(values, 0.5)
}

await main()
process.exit(0)
