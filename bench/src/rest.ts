/**
 * `npm run bench:rest [-- --store pglite|postgres|both]`: what one REST write costs beside its
 * floor, measured in the same run because this machine is shared and noisy. The server runs in a
 * process of its own, as `npm start` runs it. The floor is an HTTP round trip to a route that
 * answers without the store (a request with no key, refused with 401) plus a raw SQL insert of
 * the same row with its own commit.
 */
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrateToLatest, openPGliteStore, operations, runMutation, SCOPES, type Store } from '@hearth/engine'
import { openPostgresStore } from '@hearth/engine/node'
import { mintApiKey } from '@hearth/server'
import { sql } from 'kysely'
import { monotonicFactory } from 'ulidx'
import { benchArgs, type StoreName, scratchPostgres } from './bench-store.ts'
import { startServer, stopServer } from './server-process.ts'

const RUNS = 300
const WARMUP = 30
/** Targets from the registry issue: p50 over the floor on PostgreSQL, and absolute on PGlite. */
const TARGETS = { postgresRatio: 1.5, pgliteMs: 5 }

const id = monotonicFactory()

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
    const dataDir = join(work, 'server')
    const store = scratch ? await openPostgresStore({ url: scratch.url }) : await openPGliteStore({ dataDir })
    await migrateToLatest(store.db)
    const seeded = await seed(store)
    await store.close()

    const started = await startServer(scratch ? { DATABASE_URL: scratch.url } : { HEARTH_DATA_DIR: dataDir })
    server = started.child
    const url = started.url
    const auth = { authorization: `Bearer ${seeded.token}`, 'content-type': 'application/json' }

    const trivial = await sample(async () => {
      const res = await fetch(`${url}/households/current`)
      if (res.status !== 401) throw new Error(`expected 401, got ${res.status}`)
      await res.arrayBuffer()
    })

    // The raw insert runs on its own store: on PostgreSQL the server's database through its own
    // connection; on PGlite (one process per folder) a second folder with the same schema.
    rawStore = scratch
      ? await openPostgresStore({ url: scratch.url, poolSize: 1 })
      : await openPGliteStore({ dataDir: join(work, 'raw') })
    if (!scratch) {
      await migrateToLatest(rawStore.db)
      await seed(rawStore, seeded.householdId)
    }
    const db = rawStore.db
    const raw = await sample(async () => {
      const now = new Date()
      await sql`insert into tags (household_id, id, name, color, created_at, updated_at)
        values (${seeded.householdId}, ${id()}, ${`raw ${id()}`}, null, ${now}, ${now})`.execute(db)
    })

    const post = (headers: Record<string, string>) => async () => {
      const res = await fetch(`${url}/households/${seeded.householdId}/tags`, {
        method: 'POST',
        headers: { ...auth, ...headers },
        body: JSON.stringify({ name: `rest ${id()}` }),
      })
      if (res.status !== 201) throw new Error(`POST tags: ${res.status} ${await res.text()}`)
      await res.arrayBuffer()
    }
    const write = await sample(post({}))
    const idempotent = await sample(async () => post({ 'idempotency-key': id() })())

    const floor = trivial.p50 + raw.p50
    const target = name === 'postgres' ? `<= ${TARGETS.postgresRatio}x floor` : `<= ${TARGETS.pgliteMs} ms`
    const verdict = (p50: number) =>
      (name === 'postgres' ? p50 / floor <= TARGETS.postgresRatio : p50 <= TARGETS.pgliteMs)
        ? 'met'
        : 'MISSED'
    const row = (measure: string, t: Sampled, tgt = '') => [
      name,
      measure,
      t.p50.toFixed(2),
      t.p99.toFixed(2),
      `${(t.p50 / floor).toFixed(2)}x`,
      tgt,
    ]
    return [
      row('HTTP round trip, no store (401)', trivial),
      row('raw SQL insert of a tag, own commit', raw),
      [name, 'floor = round trip + raw insert', floor.toFixed(2), '', '1.00x', ''],
      row('REST write: POST tags', write, `${target}: ${verdict(write.p50)}`),
      row('REST write with Idempotency-Key', idempotent, `${target}: ${verdict(idempotent.p50)}`),
    ]
  } finally {
    if (server) await stopServer(server)
    await rawStore?.close()
    await scratch?.drop()
    rmSync(work, { recursive: true, force: true })
  }
}

interface Sampled {
  p50: number
  p99: number
}

async function sample(fn: () => Promise<void>): Promise<Sampled> {
  for (let i = 0; i < WARMUP; i++) await fn()
  const samples: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now()
    await fn()
    samples.push(performance.now() - t0)
  }
  samples.sort((a, b) => a - b)
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!
  return { p50: at(0.5), p99: at(0.99) }
}

/** A user with an all-scopes key and one household (with the given id, for the raw store's copy). */
async function seed(store: Store, householdId = id()) {
  const userId = id()
  const actor = { userId, scopes: [...SCOPES], now: new Date() }
  await runMutation(store.db, operations.users.create, { id: userId, name: 'REST bench' }, actor)
  await runMutation(
    store.db,
    operations.households.create,
    { id: householdId, name: 'REST bench' },
    { ...actor, householdId, role: 'owner' },
  )
  const key = mintApiKey()
  await runMutation(
    store.db,
    operations.apiKeys.create,
    { id: id(), name: 'rest bench', scopes: [...SCOPES], keyHash: key.hash, prefix: key.prefix },
    actor,
  )
  return { token: key.token, householdId }
}

await main()
