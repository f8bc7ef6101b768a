/**
 * `npx tsx bench/src/bank-sync.ts [--store pglite|postgres|both]`: a first sync of a SimpleFIN
 * connection with 5 linked accounts of 2,000 transactions each (10,000 rows, one window) from a
 * fake bridge on loopback, beside a file import of the same rows (5 OFX files of 2,000 rows,
 * committed over REST) into 5 other accounts, in the same run, on a real server in this process.
 * Each run uses a household of its own, so each meets an empty ledger.
 */
import type { Store } from '@hearth/engine'
import { loadConfig, startServer } from '@hearth/server'
import { dayAt, type FakeAccount, FakeSimplefin } from '@hearth/test'
import pino from 'pino'
import { newBenchOwner } from './bench-owner.ts'
import { benchArgs, openScratchStore } from './bench-store.ts'
import { type Comparison, printReport, type Timing } from './stats.ts'

const ACCOUNTS = 5
const ROWS = Number(process.env.BANK_SYNC_BENCH_ROWS ?? 2000)
const RUNS = Number(process.env.BANK_SYNC_BENCH_RUNS ?? 3)

function accountsOf(run: number, now: Date): FakeAccount[] {
  return Array.from({ length: ACCOUNTS }, (_, a) => ({
    id: `ACT-${run}-${a}`,
    name: `Account ${a}`,
    currency: 'USD',
    balance: '0.00',
    'balance-date': dayAt(now, 0),
    org: { name: 'Bench Bank', domain: 'bench.example' },
    transactions: Array.from({ length: ROWS }, (_, i) => ({
      id: `TX-${run}-${a}-${i}`,
      posted: dayAt(now, -1 - (i % 80)),
      amount: `-${(1 + (i % 500)).toString()}.${String(i % 100).padStart(2, '0')}`,
      description: `MERCHANT ${i % 300} STORE ${i % 7}`,
    })),
  }))
}

function ofxOf(account: FakeAccount): string {
  const day = (s: number) => new Date(s * 1000).toISOString().slice(0, 10).replaceAll('-', '')
  const rows = account.transactions
    .map(
      (t) =>
        `<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>${day(t.posted)}<TRNAMT>${t.amount}<FITID>F${t.id}<NAME>${t.description}</STMTTRN>`,
    )
    .join('\n')
  return `OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>USD<BANKTRANLIST>\n${rows}\n</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>`
}

async function measure(name: string, store: Store): Promise<Comparison[]> {
  const bridge = await new FakeSimplefin().start()
  const defaults = loadConfig({})
  const server = await startServer(
    {
      ...defaults,
      port: 0,
      host: '127.0.0.1',
      rateLimits: { ...defaults.rateLimits, restPerKey: 1_000_000 },
      webhooks: { ...defaults.webhooks, allowPrivate: true, secretKey: 'bench-key' },
      banks: { ...defaults.banks, minGapMs: 0 },
    },
    { store, logger: pino({ level: 'silent' }) },
  )
  const syncMs: number[] = []
  const fileMs: number[] = []
  try {
    for (let run = 0; run < RUNS; run++) {
      const { token } = await newBenchOwner(store)
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${server.url}/households/current${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
        const text = await res.text()
        if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`)
        return text ? JSON.parse(text) : null
      }
      const accounts = accountsOf(run, new Date())
      bridge.accounts.length = 0
      bridge.accounts.push(...accounts)
      const connection = await call('POST', '/bank-connections', { setupToken: bridge.setupToken() })
      for (const a of accounts)
        await call('PUT', `/bank-connections/${connection.id}/links/${a.id}`, {
          createAccount: { name: a.name },
        })
      let started = performance.now()
      const synced = await call('POST', `/bank-connections/${connection.id}/sync`)
      syncMs.push(performance.now() - started)
      const created = synced.lastSync.accounts.reduce((s: number, a: any) => s + a.created, 0)
      if (created !== ACCOUNTS * ROWS)
        throw new Error(`The sync created ${created} rows, not ${ACCOUNTS * ROWS}.`)
      const files = accounts.map(ofxOf)
      const targets = []
      for (const a of accounts)
        targets.push(await call('POST', '/accounts', { name: `File ${a.name}`, type: 'cash' }))
      started = performance.now()
      for (let i = 0; i < files.length; i++)
        await call('POST', '/imports', { accountId: targets[i].id, format: 'ofx', content: files[i] })
      fileMs.push(performance.now() - started)
    }
  } finally {
    await server.close()
    await bridge.close()
  }
  const timing = (ms: number[]): Timing => {
    const sorted = [...ms].sort((a, b) => a - b)
    return {
      medianMs: sorted[Math.floor(sorted.length / 2)]!,
      p95Ms: sorted.at(-1)!,
      p99Ms: sorted.at(-1)!,
      runs: ms.length,
    }
  }
  const sync = timing(syncMs)
  const file = timing(fileMs)
  const rows = ACCOUNTS * ROWS
  console.log(
    `[${name}] sync of ${ACCOUNTS} × ${ROWS} rows: median ${sync.medianMs.toFixed(0)} ms (${Math.round((rows / sync.medianMs) * 1000)} rows/s); ` +
      `file import of the same rows: median ${file.medianMs.toFixed(0)} ms (${Math.round((rows / file.medianMs) * 1000)} rows/s)`,
  )
  return [
    {
      store: name,
      measure: `bank sync, ${ACCOUNTS} accounts × ${ROWS} rows (baseline: the same rows as 5 OFX files)`,
      engine: sync,
      baseline: file,
    },
  ]
}

async function main(): Promise<void> {
  const { stores } = benchArgs()
  const rows: Comparison[] = []
  for (const name of stores) {
    const { store, drop } = await openScratchStore(name, 'bank_sync')
    try {
      rows.push(...(await measure(name, store)))
    } finally {
      await drop()
    }
  }
  printReport(rows)
}

await main()
