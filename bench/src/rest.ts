/**
 * `npm run bench:rest [-- --store pglite|postgres|both]`: what one REST write costs beside its
 * floor, measured in the same run because this machine is shared and noisy. The server runs in a
 * process of its own, as `npm start` runs it. The floor is an HTTP round trip to a route that
 * answers without the store (a request with no key, refused with 401) plus a raw SQL insert of
 * the same row with its own commit. On PostgreSQL it also measures the least any write with the
 * engine's contract can cost here (least-write-server.ts): hand-written SQL in one round trip.
 */
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrateToLatest, openPGliteStore, type Store } from '@hearth/engine'
import { openPostgresStore } from '@hearth/engine/node'
import { bootstrapOwner, mintApiKey } from '@hearth/server'
import { sql } from 'kysely'
import { monotonicFactory } from 'ulidx'
import { benchArgs, type StoreName, scratchPostgres } from './bench-store.ts'
import { startServer, stopServer } from './server-process.ts'
import { type Timing, time } from './stats.ts'

const RUNS = 300
const WARMUP = 30
/** Targets from the registry issue: p50 over the floor on PostgreSQL, and absolute on PGlite. */
const TARGETS = { postgresRatio: 1.5, pgliteMs: 5 }

const id = monotonicFactory()
const LEAST_WRITE_SERVER = new URL('./least-write-server.ts', import.meta.url).pathname

async function main(): Promise<void> {
  const { stores } = benchArgs()
  const lines: string[][] = []
  for (const name of stores) lines.push(...(await benchStore(name)))
  const header = ['store', 'measure', 'p50 ms', 'p99 ms', 'vs floor', 'target']
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)))
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
  console.log(fmt(header))
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`)
  for (const line of lines) console.log(fmt(line))
}

async function benchStore(name: StoreName): Promise<string[][]> {
  const work = mkdtempSync(join(tmpdir(), 'hearth-bench-rest-'))
  const scratch = name === 'postgres' ? await scratchPostgres('hearth_bench_rest') : null
  let server: ChildProcess | null = null
  let rawStore: Store | null = null
  try {
    // The server's first start on an empty store makes the owner, their household and this key.
    const token = mintApiKey().token
    const dataDir = join(work, 'server')
    const started = await startServer({
      HEARTH_INIT_OWNER_TOKEN: token,
      ...(scratch ? { DATABASE_URL: scratch.url } : { HEARTH_DATA_DIR: dataDir }),
    })
    server = started.child
    const url = started.url
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }

    // The raw insert runs on its own store: on PostgreSQL the server's database through its own
    // connection; on PGlite (one process per folder) a second folder with the same schema. It is
    // opened before any HTTP request: opening PGlite blocks this process for seconds, long enough
    // for the server to close an idle keep-alive socket that fetch would then reuse ("other side
    // closed").
    rawStore = scratch
      ? await openPostgresStore({ url: scratch.url, poolSize: 1 })
      : await openPGliteStore({ dataDir: join(work, 'raw') })
    if (!scratch) await migrateToLatest(rawStore.db)
    const bootstrapped = scratch ? null : await bootstrapOwner(rawStore)
    const household = await (await fetch(`${url}/households/current`, { headers: auth })).json()
    const rawHousehold = bootstrapped ? bootstrapped.householdId : (household.id as string)
    const db = rawStore.db
    const trivial = await sample(async () => {
      const res = await fetch(`${url}/households/current`)
      if (res.status !== 401) throw new Error(`expected 401, got ${res.status}`)
      await res.arrayBuffer()
    })
    const raw = await sample(async () => {
      const now = new Date()
      await sql`insert into tags (household_id, id, name, color, created_at, updated_at)
        values (${rawHousehold}, ${id()}, ${`raw ${id()}`}, null, ${now}, ${now})`.execute(db)
    })

    const post =
      (headers: Record<string, string>, base = url) =>
      async () => {
        const res = await fetch(`${base}/households/${household.id}/tags`, {
          method: 'POST',
          headers: { ...auth, ...headers },
          body: JSON.stringify({ name: `rest ${id()}` }),
        })
        if (res.status !== 201) throw new Error(`POST tags: ${res.status} ${await res.text()}`)
        await res.arrayBuffer()
      }
    const write = await sample(post({}))
    const idempotent = await sample(async () => post({ 'idempotency-key': id() })())
    // On PostgreSQL, the least any write with the engine's contract costs here (least-write-server.ts).
    let least: Timing | null = null
    if (scratch) {
      const started = await startServer(
        { DATABASE_URL: scratch.url, HOUSEHOLD_ID: household.id },
        LEAST_WRITE_SERVER,
      )
      try {
        least = await sample(post({}, started.url))
      } finally {
        await stopServer(started.child)
      }
    }

    const floor = trivial.medianMs + raw.medianMs
    const target = name === 'postgres' ? `<= ${TARGETS.postgresRatio}x floor` : `<= ${TARGETS.pgliteMs} ms`
    const verdict = (p50: number) =>
      (name === 'postgres' ? p50 / floor <= TARGETS.postgresRatio : p50 <= TARGETS.pgliteMs)
        ? 'met'
        : 'MISSED'
    const row = (measure: string, t: Timing, tgt = '') => [
      name,
      measure,
      t.medianMs.toFixed(2),
      t.p99Ms.toFixed(2),
      `${(t.medianMs / floor).toFixed(2)}x`,
      tgt,
    ]
    return [
      row('HTTP round trip, no store (401)', trivial),
      row('raw SQL insert of a tag, own commit', raw),
      [name, 'floor = round trip + raw insert', floor.toFixed(2), '', '1.00x', ''],
      row('REST write: POST tags', write, `${target}: ${verdict(write.medianMs)}`),
      row('REST write with Idempotency-Key', idempotent, `${target}: ${verdict(idempotent.medianMs)}`),
      ...(least
        ? [
            row(
              'least write: 1 pipelined round trip, no auth',
              least,
              `${target}: ${verdict(least.medianMs)}`,
            ),
          ]
        : []),
    ]
  } finally {
    if (server) await stopServer(server)
    await rawStore?.close()
    await scratch?.drop()
    rmSync(work, { recursive: true, force: true })
  }
}

/** Each figure from the same number of runs after the same warm-up. */
const sample = (fn: () => Promise<void>) => time(fn, { runs: RUNS, warmup: WARMUP })

await main()
