/**
 * `npm run bench:add-row [-- --store pglite|postgres|both] [--transactions 2000,50000] [--runs 40]`:
 * adding one row on a device (issue 44: ≤ 50 ms on a 50,000-row household). Each household is
 * seeded by the engine (household-seed.ts: 93% of its rows categorized) into a store of its own,
 * served by a server process; a device (`@hearth/client` in this process, PGlite in a folder, as
 * `bench:sync` runs them) syncs it, then adds rows as the register's Add form does
 * (`transactions.create` with a new payee's name and an outflow, no category, so the category
 * suggestion runs). Every figure stands beside two baselines from the same run, the households
 * taking turns: a `tags.create` on the same device (the least a device mutation costs there) and
 * the same create on an empty household (its catalog and accounts, no rows but the opening
 * balances). The store is the server's; what is timed runs on the device's PGlite either way.
 *
 * `--profile` writes a CPU profile of the timed creates (node:inspector) to the working folder.
 * `--data DIR` keeps the seeded households and the synced devices in DIR for the next run (PGlite).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createHearth, type Hearth } from '@hearth/client'
import { ulid } from 'ulidx'
import type { StoreName } from './bench-store.ts'
import { householdServer } from './household-server.ts'
import { summarize, type Timing } from './stats.ts'

const { values: args } = parseArgs({
  options: {
    store: { type: 'string', default: 'pglite' },
    transactions: { type: 'string', default: '2000,50000' },
    runs: { type: 'string', default: '40' },
    profile: { type: 'boolean', default: false },
    /** A folder kept between runs (PGlite): households seeded and devices synced there are reused. */
    data: { type: 'string' },
  },
})
const SIZES = args.transactions!.split(',').map(Number)
const RUNS = Number(args.runs)
const TARGET_MS = 50

interface Line {
  store: string
  measure: string
  timing: Timing
  tags: Timing
  empty: Timing
}

async function main(): Promise<void> {
  const stores: StoreName[] = args.store === 'both' ? ['pglite', 'postgres'] : [args.store as StoreName]
  console.log(`load average at start: ${loadavg()[0]!.toFixed(1)}`)
  const lines: Line[] = []
  for (const name of stores) lines.push(...(await benchStore(name)))
  console.log(`load average at end: ${loadavg()[0]!.toFixed(1)}`)
  const header = ['store', 'measure', 'p50 (p95)', 'tags.create p50', 'empty household p50', 'target']
  const table = lines.map((l) => [
    l.store,
    l.measure,
    `${l.timing.medianMs.toFixed(1)} ms (${l.timing.p95Ms.toFixed(1)})`,
    `${l.tags.medianMs.toFixed(1)} ms`,
    `${l.empty.medianMs.toFixed(1)} ms`,
    `${l.timing.medianMs <= TARGET_MS ? 'met' : 'MISSED'} (<= ${TARGET_MS} ms)`,
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)))
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
  console.log(fmt(header))
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`)
  for (const row of table) console.log(fmt(row))
}

async function benchStore(name: StoreName): Promise<Line[]> {
  const keep = args.data !== undefined && name === 'pglite'
  const work = keep ? args.data! : mkdtempSync(join(tmpdir(), 'hearth-bench-add-row-'))
  mkdirSync(work, { recursive: true })
  const stops: (() => Promise<void>)[] = []
  const devices: Hearth[] = []
  try {
    const device = async (size: number, label: string) => {
      const served = await householdServer(name, work, size, label, 'add_row', keep)
      stops.push(served.stop)
      const began = performance.now()
      const hearth = await createHearth({
        serverUrl: served.url,
        token: served.key.token,
        household: served.seeded.ctx.householdId,
        store: join(work, `device-${label}`),
      })
      devices.push(hearth)
      await hearth.sync.whenSynced({ timeoutMs: 600_000 })
      console.log(
        `[${name}] device synced ${size} rows in ${((performance.now() - began) / 1000).toFixed(1)} s`,
      )
      return { hearth, accountId: served.seeded.accountIds[0]! }
    }
    const empty = await device(0, 'empty')
    const lines: Line[] = []
    for (const size of SIZES) {
      const big = await device(size, `rows-${size}`)
      const day = new Date().toISOString().slice(0, 10)
      const add = (d: { hearth: Hearth; accountId: string }) => () =>
        d.hearth.mutate.transactions.create({
          accountId: d.accountId,
          date: day,
          amountCents: -1234,
          payeeName: `Bench ${ulid()}`,
        })
      const samples: number[] = []
      const tags: number[] = []
      const base: number[] = []
      const profiler = args.profile ? new Session() : null
      for (let i = 0; i < RUNS + 5; i++) {
        // The three take turns, so all see the same machine.
        const timed = async (fn: () => Promise<unknown>, into: number[]) => {
          const t0 = performance.now()
          await fn()
          if (i >= 5) into.push(performance.now() - t0)
        }
        if (i === 5 && profiler) {
          profiler.connect()
          await profiler.post('Profiler.enable')
          await profiler.post('Profiler.start')
        }
        await timed(add(big), samples)
        await timed(() => big.hearth.mutate.tags.create({ name: `bench ${ulid()}` }), tags)
        await timed(add(empty), base)
      }
      if (profiler) {
        const { profile } = await profiler.post('Profiler.stop')
        const file = `add-row-${name}-${size}.cpuprofile`
        writeFileSync(file, JSON.stringify(profile))
        console.log(`[${name}] CPU profile of the timed runs: ${file}`)
        profiler.disconnect()
      }
      lines.push({
        store: name,
        measure: `device transactions.create, ${size} rows`,
        timing: summarize(samples),
        tags: summarize(tags),
        empty: summarize(base),
      })
      console.log(
        `[${name}] ${size} rows: create p50 ${summarize(samples).medianMs.toFixed(1)} ms, tags.create ${summarize(tags).medianMs.toFixed(1)} ms, empty household ${summarize(base).medianMs.toFixed(1)} ms`,
      )
      await big.hearth.close()
      devices.splice(devices.indexOf(big.hearth), 1)
    }
    return lines
  } finally {
    for (const d of devices) await d.close()
    for (const stop of stops) await stop()
    if (!keep) rmSync(work, { recursive: true, force: true })
  }
}

await main()
