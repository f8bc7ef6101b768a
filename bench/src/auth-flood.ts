/**
 * A valid member's REST read during a flood of wrong keys from the same address and with the same
 * visible key prefix, beside the same read with no flood, on one server process (issue 37).
 *
 *   npm run bench:auth-flood                      # the embedded store
 *   BENCH_DATABASE_URL=postgres://… npm run bench:auth-flood
 *   BENCH_FLOOD_PARALLEL=1024 npm run bench:auth-flood   # more wrong keys in flight than are held
 *
 * The flood runs in a process of its own (flood.ts); both reach the server from 127.0.0.1.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { flood, startFlood } from './flood.ts'
import { startServer, stopServer } from './server-process.ts'
import { readTags, summarizeReads } from './stats.ts'

const TOKEN = 'hth_bench_auth_flood_token_0123456789abcdef'
/** Reads per turn, and turns of each kind, alternating: alone, flooded, alone, flooded … */
const READS = 200
const TURNS = 3
/** Wrong keys in flight at once (`BENCH_FLOOD_PARALLEL`): 16, or more to pass the server's 512 held answers. */
const FLOOD_PARALLEL = Number(process.env.BENCH_FLOOD_PARALLEL ?? 16)

/** One wrong key with the member's prefix (GET tags), labelled by its status. */
async function wrongKey(url: string): Promise<string> {
  const wrong = `${TOKEN.slice(0, 8)}${crypto.randomUUID().replaceAll('-', '')}`
  const res = await fetch(`${url}/households/current/tags`, { headers: { authorization: `Bearer ${wrong}` } })
  await res.arrayBuffer()
  return String(res.status)
}

async function main(): Promise<void> {
  const databaseUrl = process.env.BENCH_DATABASE_URL
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-auth-flood-'))
  const { child, url } = await startServer({
    HEARTH_INIT_OWNER_TOKEN: TOKEN,
    HEARTH_DATA_DIR: dataDir,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    HEARTH_RATE_REST_PER_KEY: '100000000',
  })
  try {
    for (let i = 0; i < 50; i++) await readTags(url, TOKEN)
    const alone: number[] = []
    const flooded: number[] = []
    const statuses: Record<string, number> = {}
    let floodSeconds = 0
    for (let turn = 0; turn < TURNS; turn++) {
      for (let i = 0; i < READS; i++) alone.push(await readTags(url, TOKEN))
      const running = await startFlood(new URL(import.meta.url).pathname, url)
      for (let i = 0; i < READS; i++) flooded.push(await readTags(url, TOKEN))
      const counts = await running.stop()
      floodSeconds += counts.seconds
      for (const [status, n] of Object.entries(counts.statuses)) {
        statuses[status] = (statuses[status] ?? 0) + n
      }
    }
    const a = summarizeReads(alone)
    const b = summarizeReads(flooded)
    const wrong = Object.values(statuses).reduce((sum, n) => sum + n, 0)
    const store = databaseUrl ? 'PostgreSQL' : 'PGlite'
    const ms = (n: number) => `${n.toFixed(1)} ms`
    console.log(`\nA valid key's REST read (GET tags) on ${store}, ${TURNS} turns of ${READS} reads each way`)
    console.log('| Reads | n | p50 | p99 | max |\n|---|---|---|---|---|')
    console.log(`| alone | ${a.reads} | ${ms(a.p50)} | ${ms(a.p99)} | ${ms(a.max)} |`)
    console.log(`| during the flood | ${b.reads} | ${ms(b.p50)} | ${ms(b.p99)} | ${ms(b.max)} |`)
    console.log(
      `flood: ${wrong} wrong keys with the same prefix from the same address, ${FLOOD_PARALLEL} in flight, ` +
        `${Math.round(wrong / floodSeconds)} a second; answers ${JSON.stringify(statuses)}; p50 ratio ${(b.p50 / a.p50).toFixed(2)}`,
    )
  } finally {
    await stopServer(child)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (process.argv[2] === '--flood') await flood(() => wrongKey(process.argv[3]!), FLOOD_PARALLEL)
else await main()
