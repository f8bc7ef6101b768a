/**
 * `npm run bench:cost-limits [-- --store pglite|postgres|both]`: what a member looping expensive
 * operations costs the rest of the household (issue 38, item 3). The server runs in a process of
 * its own, as `npm start` runs it. The owner's REST read (`GET H/accounts`) is timed idle, then
 * while a read-only member's key runs two loops of 10,000-row import previews back to back (as
 * the outside probe did), in the same run; target: the loaded p50 at most 2 × the idle p50.
 */
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mintApiKey } from '@hearth/server'
import { benchArgs, type StoreName, scratchPostgres } from './bench-store.ts'
import { startServer, stopServer } from './server-process.ts'
import { prng, type Timing } from './stats.ts'

const FILE_ROWS = Number(process.env.COST_BENCH_ROWS ?? 10_000)
const READS = Number(process.env.COST_BENCH_READS ?? 200)
const LOOPS = 2
const TARGET_RATIO = 2

/**
 * The server as shipped, and beside it (same run) one whose cost limits are as good as off: a
 * thousand expensive calls at a time, 1% rest, 1 ms pauses (the settings take positive integers).
 */
const MODES = [
  {
    label: 'limits off',
    env: {
      HEARTH_EXPENSIVE_PER_MEMBER: '1000',
      HEARTH_EXPENSIVE_PER_HOUSEHOLD: '1000',
      HEARTH_EXPENSIVE_REST_PERCENT: '1',
      HEARTH_EXPENSIVE_YIELD_MS: '1',
    },
  },
  { label: 'limits on (defaults)', env: {} },
] as const

async function main(): Promise<void> {
  const { stores } = benchArgs()
  const lines: string[][] = []
  for (const name of stores) {
    for (const mode of MODES) lines.push(...(await benchStore(name, mode)))
  }
  const header = ['store', 'measure', 'p50 ms', 'p95 ms', 'max ms', 'of idle p50', 'target']
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)))
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
  console.log(fmt(header))
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`)
  for (const line of lines) console.log(fmt(line))
}

async function benchStore(name: StoreName, mode: (typeof MODES)[number]): Promise<string[][]> {
  const work = mkdtempSync(join(tmpdir(), 'hearth-bench-cost-'))
  const scratch = name === 'postgres' ? await scratchPostgres('hearth_bench_cost') : null
  let server: ChildProcess | null = null
  try {
    const token = mintApiKey().token
    const started = await startServer({
      ...mode.env,
      HEARTH_INIT_OWNER_TOKEN: token,
      ...(scratch ? { DATABASE_URL: scratch.url } : { HEARTH_DATA_DIR: join(work, 'server') }),
    })
    server = started.child
    const owner = client(started.url, token)
    const household = (await owner.json('GET', '/households/current')).id as string
    const H = `/households/${household}`
    const account = (await owner.json('POST', `${H}/accounts`, { name: 'Checking', type: 'cash' })).id
    // The account holds one committed file already, so each preview matches against 10,000 rows.
    await owner.json('POST', `${H}/imports`, {
      accountId: account,
      format: 'ofx',
      content: ofxFile(FILE_ROWS, 'seed'),
    })
    const invitation = await owner.json('POST', `${H}/invitations`, {
      role: 'member',
      scopes: ['read:households', 'read:accounts', 'read:transactions'],
    })
    const redeemed = await client(started.url).json('POST', '/invitations/redeem', {
      code: invitation.code,
      name: 'Reader',
    })
    const reader = client(started.url, redeemed.apiKey.key)
    const preview = JSON.stringify({
      accountId: account,
      format: 'ofx',
      content: ofxFile(FILE_ROWS, 'probe'),
    })

    const read = async () => {
      const res = await owner.raw('GET', `${H}/accounts`)
      if (res.status !== 200) throw new Error(`GET accounts: ${res.status}`)
      await res.arrayBuffer()
    }
    for (let i = 0; i < 20; i++) await read()
    const idle = await sampleReads(read)

    // Two loops of previews from the reader's key, back to back; a refusal waits its Retry-After.
    const outcome = { previews: [] as number[], refused: 0, other: [] as number[] }
    let running = true
    const loop = async () => {
      while (running) {
        const startedAt = performance.now()
        const res = await reader.raw('POST', `${H}/imports/preview`, preview)
        await res.arrayBuffer()
        if (res.status === 200) outcome.previews.push(performance.now() - startedAt)
        else if (res.status === 429) {
          outcome.refused++
          await sleep(Number(res.headers.get('retry-after') ?? 1) * 1000)
        } else outcome.other.push(res.status)
      }
    }
    const loops = Array.from({ length: LOOPS }, loop)
    // Let the loops get going before the reads are timed.
    while (outcome.previews.length < 1) await sleep(50)
    const loaded = await sampleReads(read)
    running = false
    await Promise.all(loops)

    const ratio = loaded.medianMs / idle.medianMs
    const row = (measure: string, t: Timing & { maxMs: number }, of: string, target = '') => [
      `${name}, ${mode.label}`,
      measure,
      t.medianMs.toFixed(1),
      t.p95Ms.toFixed(1),
      t.maxMs.toFixed(1),
      of,
      target,
    ]
    const previews = timing(outcome.previews)
    return [
      row('owner GET accounts, idle', idle, '1.00x'),
      row(
        `owner GET accounts, reader looping previews (${LOOPS} loops)`,
        loaded,
        `${ratio.toFixed(2)}x`,
        `<= ${TARGET_RATIO}x: ${ratio <= TARGET_RATIO ? 'met' : 'MISSED'}`,
      ),
      row(
        `reader's ${FILE_ROWS}-row previews: ${previews.runs} answered, ${outcome.refused} refused (429)${outcome.other.length > 0 ? `, other answers: ${outcome.other.join(' ')}` : ''}`,
        previews,
        '',
      ),
    ]
  } finally {
    if (server) await stopServer(server)
    await scratch?.drop()
    rmSync(work, { recursive: true, force: true })
  }
}

/** `READS` reads one after another, each after a pause of up to 20 ms (so they fall anywhere in a preview). */
async function sampleReads(read: () => Promise<void>): Promise<Timing & { maxMs: number }> {
  const random = prng(38)
  const samples: number[] = []
  for (let i = 0; i < READS; i++) {
    await sleep(random() * 20)
    const start = performance.now()
    await read()
    samples.push(performance.now() - start)
  }
  return timing(samples)
}

function timing(samples: number[]): Timing & { maxMs: number } {
  const s = [...samples].sort((a, b) => a - b)
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN
  return {
    runs: s.length,
    medianMs: at(0.5),
    p95Ms: at(0.95),
    p99Ms: at(0.99),
    maxMs: s.at(-1) ?? Number.NaN,
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A JSON client of the server, with or without a key. */
function client(url: string, token?: string) {
  const raw = (method: string, path: string, body?: string) =>
    fetch(`${url}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body,
    })
  return {
    raw,
    async json(method: string, path: string, body?: unknown): Promise<any> {
      const res = await raw(method, path, body === undefined ? undefined : JSON.stringify(body))
      const text = await res.text()
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`)
      return text ? JSON.parse(text) : null
    },
  }
}

/** An OFX 1.02 file of `n` card rows, FITIDs prefixed by `tag`. */
function ofxFile(n: number, tag: string): string {
  const random = prng(78)
  const head = ['OFXHEADER:100', 'DATA:OFXSGML', 'VERSION:102', '', '<OFX>', '<BANKMSGSRSV1>', '<STMTTRNRS>']
  const lines = [...head, '<STMTRS>', '<CURDEF>USD', '<BANKTRANLIST>']
  for (let i = 0; i < n; i++) {
    const cents = Math.floor(random() * 20_000) + 100
    lines.push(
      '<STMTTRN>',
      '<TRNTYPE>DEBIT',
      `<DTPOSTED>202611${String(1 + (i % 28)).padStart(2, '0')}`,
      `<TRNAMT>-${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`,
      `<FITID>${tag}-${i}`,
      `<NAME>SHOP ${1000 + (i % 97)}`,
      '</STMTTRN>',
    )
  }
  lines.push('</BANKTRANLIST>', '</STMTRS>', '</STMTTRNRS>', '</BANKMSGSRSV1>', '</OFX>')
  return lines.join('\r\n')
}

await main()
