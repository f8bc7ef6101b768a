/**
 * `npm run bench:webhooks [-- --store pglite|postgres|both]`: 1,000 events fanned out to 10
 * subscriptions (10,000 signed deliveries) to receivers on loopback, with the time until the last
 * one arrived (counted from the first bulk request, so booking the events is part of it; the
 * booking's own time is shown too), and the REST write (POST tags) p50 and p99 measured while
 * they go out beside the same measure with no deliveries, in the same run. The server runs in a
 * process of its own.
 */
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mintApiKey } from '@hearth/server'
import { monotonicFactory } from 'ulidx'
import { benchArgs, type StoreName, scratchPostgres } from './bench-store.ts'
import { startServer, stopServer } from './server-process.ts'
import { type Timing, time } from './stats.ts'

const EVENTS = 1000
const SUBSCRIPTIONS = 10
const RUNS = 200
const TARGET_S = 10
const id = monotonicFactory()

/** A receiver that answers 200 and counts distinct event ids. */
async function receiver(): Promise<{ server: Server; url: string; seen: Set<string> }> {
  const seen = new Set<string>()
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      seen.add(String(req.headers['webhook-id']))
      res.writeHead(200)
      res.end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, seen }
}

async function benchStore(name: StoreName): Promise<string[][]> {
  const work = mkdtempSync(join(tmpdir(), 'hearth-bench-webhooks-'))
  const scratch = name === 'postgres' ? await scratchPostgres('hearth_bench_webhooks') : null
  const receivers = await Promise.all(Array.from({ length: SUBSCRIPTIONS }, receiver))
  let server: ChildProcess | null = null
  try {
    const token = mintApiKey().token
    const started = await startServer({
      HEARTH_INIT_OWNER_TOKEN: token,
      HEARTH_WEBHOOK_ALLOW_PRIVATE: 'true',
      HEARTH_WEBHOOK_SECRET_KEY: 'bench',
      ...(scratch ? { DATABASE_URL: scratch.url } : { HEARTH_DATA_DIR: join(work, 'server') }),
    })
    server = started.child
    const H = `${started.url}/households/current`
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${H}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
      return res.json()
    }
    const writeTag = async () => void (await call('POST', '/tags', { name: `bench ${id()}` }))
    const quiet = await time(writeTag, { runs: RUNS, warmup: 20 })

    const account = await call('POST', '/accounts', { name: 'Checking', type: 'cash' })
    for (const r of receivers)
      await call('POST', '/webhooks/subscriptions', { url: r.url, eventTypes: ['transaction.created'] })
    const started2 = performance.now()
    for (let batch = 0; batch < EVENTS / 500; batch++) {
      const transactions = Array.from({ length: 500 }, (_, i) => ({
        accountId: account.id,
        date: '2025-03-10',
        amountCents: -(batch * 500 + i + 1),
      }))
      await call('POST', '/transactions/bulk', { transactions })
    }
    const booked = (performance.now() - started2) / 1000
    const delivered = () => receivers.reduce((n, r) => n + r.seen.size, 0)
    // The write measure runs while the deliveries go out; it stops early if they are all done.
    let busy: Timing | null = null
    const measuring = time(writeTag, { runs: RUNS, warmup: 0 }).then((t) => {
      busy = t
    })
    let doneAt: number | null = null
    let traced = 0
    while (doneAt === null && performance.now() - started2 < 120_000) {
      if (process.env.WEBHOOKS_BENCH_TRACE === '1' && performance.now() - started2 >= traced * 250) {
        console.log(
          `${(traced / 4).toFixed(2)} s: ${delivered()} delivered ${receivers.map((r) => r.seen.size).join(' ')}`,
        )
        traced++
      }
      if (delivered() >= EVENTS * SUBSCRIPTIONS) doneAt = performance.now()
      else await new Promise((r) => setTimeout(r, 10))
    }
    await measuring
    const seconds = doneAt === null ? Number.NaN : (doneAt - started2) / 1000
    const t = busy as Timing | null
    return [
      [
        name,
        'REST write p50 / p99, no deliveries',
        `${quiet.medianMs.toFixed(2)} / ${quiet.p99Ms.toFixed(2)} ms`,
        '',
      ],
      [
        name,
        'REST write p50 / p99, during deliveries',
        t ? `${t.medianMs.toFixed(2)} / ${t.p99Ms.toFixed(2)} ms` : '-',
        t ? `${(t.medianMs / quiet.medianMs).toFixed(2)}x p50` : '',
      ],
      [
        name,
        `${EVENTS} events x ${SUBSCRIPTIONS} subscriptions delivered`,
        `${delivered()} in ${seconds.toFixed(2)} s`,
        `<= ${TARGET_S} s: ${seconds <= TARGET_S ? 'met' : 'MISSED'}`,
      ],
      [name, '  of which booking the 1000 transactions (2 bulk requests)', `${booked.toFixed(2)} s`, ''],
    ]
  } finally {
    if (server) await stopServer(server)
    for (const r of receivers) {
      r.server.closeAllConnections()
      r.server.close()
    }
    await scratch?.drop()
    rmSync(work, { recursive: true, force: true })
  }
}

async function main(): Promise<void> {
  const { stores } = benchArgs()
  const lines: string[][] = []
  for (const name of stores) lines.push(...(await benchStore(name)))
  const header = ['store', 'measure', 'figure', 'vs baseline / target']
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)))
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
  console.log(fmt(header))
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`)
  for (const line of lines) console.log(fmt(line))
}

await main()
