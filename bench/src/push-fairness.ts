/**
 * A REST read beside a 1,000-mutation sync push: how long a read waits while a device's large
 * push is applied, beside the same read with nothing else running, on one server process.
 *
 *   npx tsx bench/src/push-fairness.ts                  # the embedded store
 *   BENCH_DATABASE_URL=postgres://… npx tsx bench/src/push-fairness.ts
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SYNC_PROTOCOL_VERSION } from '@hearth/contracts'
import { ulid } from 'ulidx'
import WebSocket from 'ws'
import { startServer, stopServer } from './server-process.ts'
import { readTags, summarizeReads } from './stats.ts'

const TOKEN = 'hth_bench_push_fairness_token_0123456789'
const PUSHES = 5
const MUTATIONS = 1000

/** Reads back to back until `done` settles; the latency of each. */
async function readWhile(url: string, done: Promise<unknown>): Promise<number[]> {
  let finished = false
  void done.then(() => (finished = true))
  const samples: number[] = []
  while (!finished) samples.push(await readTags(url, TOKEN))
  return samples
}

async function joinedSocket(url: string): Promise<{ ws: WebSocket; next: (type: string) => Promise<any> }> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/sync`)
  const inbox: any[] = []
  const waiting: (() => void)[] = []
  ws.on('message', (data) => {
    inbox.push(JSON.parse(data.toString()))
    for (const w of waiting.splice(0)) w()
  })
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
  const next = async (type: string) => {
    while (true) {
      const i = inbox.findIndex((m) => m.type === type)
      if (i >= 0) return inbox.splice(i, 1)[0]
      await new Promise<void>((resolve) => waiting.push(resolve))
    }
  }
  ws.send(
    JSON.stringify({
      v: SYNC_PROTOCOL_VERSION,
      type: 'hello',
      token: TOKEN,
      householdId: 'current',
      clientId: ulid(),
      cursor: null,
    }),
  )
  await next('welcome')
  return { ws, next }
}

async function main(): Promise<void> {
  const databaseUrl = process.env.BENCH_DATABASE_URL
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-fairness-'))
  const { child, url } = await startServer({
    HEARTH_INIT_OWNER_TOKEN: TOKEN,
    HEARTH_DATA_DIR: dataDir,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    HEARTH_RATE_REST_PER_KEY: '100000000',
    HEARTH_RATE_PUSHES_PER_SECOND: '100000',
  })
  try {
    for (let i = 0; i < 50; i++) await readTags(url, TOKEN)
    const idle: number[] = []
    for (let i = 0; i < 400; i++) idle.push(await readTags(url, TOKEN))
    const { ws, next } = await joinedSocket(url)
    const busy: number[] = []
    const pushMs: number[] = []
    let id = 0
    for (let p = 0; p < PUSHES; p++) {
      const mutations = Array.from({ length: MUTATIONS }, () => ({
        id: ++id,
        name: 'tags.create',
        args: { id: ulid(), name: `Tag ${id}` },
      }))
      const started = performance.now()
      ws.send(JSON.stringify({ v: SYNC_PROTOCOL_VERSION, type: 'push', mutations }))
      const answered = next('pushResult').then(() => pushMs.push(performance.now() - started))
      busy.push(...(await readWhile(url, answered)))
    }
    ws.close()
    const a = summarizeReads(idle)
    const b = summarizeReads(busy)
    const store = databaseUrl ? 'PostgreSQL' : 'PGlite'
    const ms = (n: number) => `${n.toFixed(1)} ms`
    console.log(`\nREST read (GET tags) on ${store}, ${PUSHES} pushes of ${MUTATIONS} mutations each`)
    console.log('| Reads | n | p50 | p99 | max |\n|---|---|---|---|---|')
    console.log(`| alone | ${a.reads} | ${ms(a.p50)} | ${ms(a.p99)} | ${ms(a.max)} |`)
    console.log(`| during a push | ${b.reads} | ${ms(b.p50)} | ${ms(b.p99)} | ${ms(b.max)} |`)
    console.log(
      `push of ${MUTATIONS}: median ${ms(pushMs.sort((x, y) => x - y)[Math.floor(pushMs.length / 2)]!)}`,
    )
  } finally {
    await stopServer(child)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
