/**
 * `npm run bench:web [-- --store pglite|postgres|both] [--transactions N]`: the household web app
 * in Debian's Chromium (playwright-core, as test/web/web-app.test.ts drives it), served at /app by
 * the real server in a process of its own, on a household of 20,000 transactions (issue 30):
 *
 * 1. a reload with a warm replica (this browser synced the household before) until the budget
 *    screen is interactive: Ready to Assign shown and the assigned fields enabled, < 1 s (the app
 *    paints it from what it showed last time), and until the replica is open and answers;
 * 2. a click on another account in the sidebar until that account's first 100 rows are shown, < 50 ms;
 * 3. an edit on one device until the other device (the same member's second browser context)
 *    shows it, p50 < 100 ms.
 *
 * Each figure is measured in the page (performance.now() at the first animation frame after the
 * DOM holds the result), beside a baseline from the same run: a REST GET of the same data (1, 2)
 * and a REST PATCH of the same row (3). The household is seeded by the engine's mutators
 * (household-seed.ts) into a scratch store before the server starts; the store defaults to PGlite,
 * since what is measured runs in the browser.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { migrateToLatest, operations, runMutation } from '@hearth/engine'
import { openStore } from '@hearth/engine/node'
import { mintApiKey } from '@hearth/server'
import type { BrowserContext, Page } from 'playwright-core'
import { ulid } from 'ulidx'
import { launchPersistentChromium } from '../../test/src/browser.ts'
import { ensureWebBuild } from '../../test/web/web-build.ts'
import { type StoreName, scratchPostgres } from './bench-store.ts'
import { seedHousehold } from './household-seed.ts'
import { startServer, stopServer } from './server-process.ts'
import { type Timing, time } from './stats.ts'

const { values: args } = parseArgs({
  options: {
    store: { type: 'string', default: 'pglite' },
    transactions: { type: 'string', default: '20000' },
    reloads: { type: 'string', default: '7' },
    switches: { type: 'string', default: '30' },
    edits: { type: 'string', default: '30' },
    /** Prints where the page spent its CPU time (Chrome's sampling profiler) in each measure. */
    profile: { type: 'boolean', default: false },
  },
})
const SIZE = Number(args.transactions)
const RUNS = { reloads: Number(args.reloads), switches: Number(args.switches), edits: Number(args.edits) }
const TARGETS = { loadMs: 1000, switchMs: 50, editMs: 100 }
/** The seed's own "now" is 2026-11-22; the budget month the app opens is this month. */
const MONTH = new Date().toISOString().slice(0, 7)

interface Line {
  store: string
  measure: string
  timing: Timing
  baseline: string
  base: Timing
  targetMs: number
}

async function main(): Promise<void> {
  const stores: StoreName[] = args.store === 'both' ? ['pglite', 'postgres'] : [args.store as StoreName]
  if (!stores.every((s) => s === 'pglite' || s === 'postgres'))
    throw new Error('--store must be pglite, postgres or both')
  // The server serves packages/web/dist: a bundle older than the app's sources is built again.
  ensureWebBuild()
  const lines: Line[] = []
  for (const name of stores) lines.push(...(await benchStore(name)))
  printLines(lines)
}

async function benchStore(name: StoreName): Promise<Line[]> {
  const work = mkdtempSync(join(tmpdir(), 'hearth-bench-web-'))
  const scratch = name === 'postgres' ? await scratchPostgres('hearth_bench_web') : null
  const dataDir = join(work, 'server')
  let server: Awaited<ReturnType<typeof startServer>> | null = null
  const contexts: BrowserContext[] = []
  try {
    // Seed with the engine before the server opens the store (PGlite has one process per folder).
    const store = await openStore(scratch ? { databaseUrl: scratch.url, dataDir } : { dataDir })
    await migrateToLatest(store.db)
    const began = performance.now()
    const seeded = await seedHousehold(store, (m) => console.log(`[${name}] ${m}`), {
      transactions: SIZE,
      name: `Web bench household (${SIZE})`,
    })
    const key = mintApiKey()
    await runMutation(
      store.db,
      operations.apiKeys.create,
      { id: ulid(), name: 'Web bench', scopes: seeded.ctx.scopes, keyHash: key.hash, prefix: key.prefix },
      seeded.ctx,
    )
    await store.close()
    console.log(
      `[${name}] seeded ${SIZE} transactions in ${((performance.now() - began) / 1000).toFixed(1)} s`,
    )

    server = await startServer(scratch ? { DATABASE_URL: scratch.url } : { HEARTH_DATA_DIR: dataDir })
    const url = server.url
    const h = `${url}/households/${seeded.ctx.householdId}`
    const rest = async (path: string, init: RequestInit = {}) => {
      const res = await fetch(`${h}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' },
      })
      if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${await res.text()}`)
      return res.json()
    }

    // Two devices of the owner: two browsers, each with a profile on disk (a `newContext()` keeps
    // IndexedDB in memory, so a reload would not read a replica as a person's browser does) and
    // its own IndexedDB replica, synced at once.
    const viewport = { width: 1280, height: 860 }
    const [a, b] = await Promise.all(
      ['A', 'B'].map(async (device) => {
        const context = await launchPersistentChromium(join(work, `profile-${device}`), { viewport })
        contexts.push(context)
        return signIn(context, url, key.token, device)
      }),
    )
    for (const [device, d] of [
      ['A', a!],
      ['B', b!],
    ] as const)
      console.log(
        `[${name}] device ${device}: first sync of the household in ${(d.syncedMs / 1000).toFixed(1)} s`,
      )

    const lines: Line[] = []
    lines.push(...(await warmLoad(name, a!.page, () => rest(`/budgets/${MONTH}`))))
    lines.push(await accountSwitch(name, a!.page, seeded.accountIds, rest))
    lines.push(await editSeen(name, a!.page, b!.page, seeded.accountIds[0]!, rest))
    return lines
  } finally {
    for (const context of contexts) await context.close()
    if (server) await stopServer(server.child)
    await scratch?.drop()
    rmSync(work, { recursive: true, force: true })
  }
}

/** Signs in as a new device would (the sign-in screen), and waits for the first sync to end. */
async function signIn(context: BrowserContext, url: string, token: string, device: string) {
  // tsx keeps function names with an `__name` helper, which functions sent to the page then call.
  await context.addInitScript({ content: 'globalThis.__name = (f) => f' })
  await context.addInitScript(installBudgetProbe)
  const page = context.pages()[0] ?? (await context.newPage())
  page.on('pageerror', (error) => console.error(`page error (${device}):`, error.message))
  await page.goto(`${url}/app/`)
  await page.getByLabel('API key').fill(token)
  await page.getByLabel('This device’s name').fill(`Bench ${device}`)
  const started = performance.now()
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForFunction(
    () => document.querySelector('.sync-badge')?.getAttribute('data-state') === 'online',
    null,
    {
      timeout: 600_000,
      polling: 100,
    },
  )
  const syncedMs = performance.now() - started
  // The service worker has the shell before the warm reloads are measured.
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined))
  return { context, page, syncedMs }
}

/**
 * Runs in every page before its scripts (an init script): on a budget page, notes the first
 * animation frame after Ready to Assign and an enabled assigned field are in the DOM.
 */
function installBudgetProbe() {
  if (!location.pathname.startsWith('/app/budget')) return
  const w = window as unknown as { budgetReadyMs?: number; replicaOpenMs?: number }
  const ready = () =>
    document.querySelector('[data-testid="ready-to-assign"]') !== null &&
    document.querySelector('input[name="assigned"]:not([disabled])') !== null
  // The replica is open once the sync badge no longer says "Opening…" (the budget may have
  // painted before, from what it showed last time).
  const open = () => {
    const state = document.querySelector('.sync-badge')?.getAttribute('data-state')
    return state !== undefined && state !== null && state !== 'opening'
  }
  const observer = new MutationObserver(() => {
    if (w.budgetReadyMs === undefined && ready()) {
      requestAnimationFrame(() => {
        w.budgetReadyMs ??= performance.now()
      })
    }
    if (w.replicaOpenMs === undefined && open()) {
      requestAnimationFrame(() => {
        w.replicaOpenMs ??= performance.now()
      })
    }
    if (w.budgetReadyMs !== undefined && w.replicaOpenMs !== undefined) observer.disconnect()
  })
  observer.observe(document, { childList: true, subtree: true, attributes: true })
}

/**
 * 1: reloads of the budget screen on a warm replica, against a REST GET of the budget month: until
 * the screen is interactive (it paints from what it showed last time, packages/web/src/screen-cache.ts),
 * and until the replica is open and answers.
 */
async function warmLoad(store: string, page: Page, get: () => Promise<unknown>): Promise<Line[]> {
  const origin = new URL(page.url()).origin
  await page.goto(`${origin}/app/budget/${MONTH}`)
  const load = async () => {
    await page.reload()
    const handle = await page.waitForFunction(
      () => {
        const w = window as unknown as { budgetReadyMs?: number; replicaOpenMs?: number }
        return w.budgetReadyMs !== undefined && w.replicaOpenMs !== undefined
          ? [w.budgetReadyMs, w.replicaOpenMs]
          : undefined
      },
      null,
      { timeout: 180_000, polling: 50 },
    )
    return (await handle.jsonValue()) as [number, number]
  }
  const interactive: number[] = []
  const open: number[] = []
  // Where a reload's time goes: the replica's Web Lock, PGlite's start on its blocks, its open.
  const phases: Record<string, number[]> = {}
  const phasesOf = async () => {
    const entries = await page.evaluate(() =>
      performance
        .getEntriesByType('measure')
        .filter((e) => e.name.startsWith('hearth: '))
        .map((e) => ({ name: e.name, ms: e.duration })),
    )
    for (const e of entries) phases[e.name] = [...(phases[e.name] ?? []), e.ms]
  }
  await load() // one unmeasured: the first reload after sign-in
  for (let i = 0; i < RUNS.reloads; i++) {
    const [ready, opened] = await load()
    interactive.push(ready)
    open.push(opened)
    await phasesOf()
  }
  for (const [name, ms] of Object.entries(phases))
    console.log(
      `[${store}] warm reload, ${name.slice('hearth: '.length)}: p50 ${summarize(ms).medianMs.toFixed(1)} ms`,
    )
  if (args.profile) await profiled(page, 'warm reload', load)
  const base = await time(get, { runs: RUNS.reloads * 3, warmup: 2 })
  return [
    {
      store,
      measure: 'warm reload to an interactive budget screen',
      timing: summarize(interactive),
      baseline: `REST GET /budgets/${MONTH}`,
      base,
      targetMs: TARGETS.loadMs,
    },
    {
      store,
      measure: 'warm reload until the replica answers',
      timing: summarize(open),
      baseline: `REST GET /budgets/${MONTH}`,
      base,
      targetMs: TARGETS.loadMs,
    },
  ]
}

/** 2: clicks on the sidebar's accounts, each until its first page of rows is shown. */
async function accountSwitch(
  store: string,
  page: Page,
  accountIds: string[],
  rest: (path: string) => Promise<any>,
): Promise<Line> {
  // The accounts with rows; each one's newest row and page size, as REST lists them.
  const accounts: { id: string; first: string; count: number }[] = []
  for (const id of accountIds) {
    const { items } = await rest(`/transactions?accountId=${id}&limit=100`)
    if (items.length > 0) accounts.push({ id, first: items[0].id, count: items.length })
  }
  await page.goto(`${new URL(page.url()).origin}/app/accounts/${accounts[0]!.id}`)
  await page.locator(`tr.txn-row[data-id="${accounts[0]!.first}"]`).waitFor({ timeout: 60_000 })
  const samples: number[] = []
  const switchTo = (to: { id: string; first: string; count: number }) =>
    page.evaluate(
      (target) =>
        new Promise<number>((resolve, reject) => {
          const link = document.querySelector<HTMLAnchorElement>(`a[href="/app/accounts/${target.id}"]`)
          if (!link) return reject(new Error(`no link to ${target.id}`))
          const shown = () => {
            const rows = document.querySelectorAll('tr.txn-row')
            return rows.length === target.count && rows[0]!.getAttribute('data-id') === target.first
          }
          const observer = new MutationObserver(() => {
            if (!shown()) return
            observer.disconnect()
            requestAnimationFrame(() => resolve(performance.now() - start))
          })
          observer.observe(document.body, { childList: true, subtree: true })
          const start = performance.now()
          link.click()
        }),
      to,
    )
  for (let i = 0; i < RUNS.switches + 3; i++) {
    const ms = await switchTo(accounts[(i + 1) % accounts.length]!)
    if (i >= 3) samples.push(ms)
  }
  if (args.profile) await profiled(page, 'account switch', () => switchTo(accounts[0]!))
  const target = accounts[1]!
  return {
    store,
    measure: 'switch account in the register (click to its 100 rows shown)',
    timing: summarize(samples),
    baseline: 'REST GET transactions?accountId&limit=100',
    base: await time(() => rest(`/transactions?accountId=${target.id}&limit=100`), {
      runs: RUNS.switches,
      warmup: 3,
    }),
    targetMs: TARGETS.switchMs,
  }
}

/** 3: an edit on device A (the SDK call the editor makes) until device B's register shows it. */
async function editSeen(
  store: string,
  a: Page,
  b: Page,
  accountId: string,
  rest: (path: string, init?: RequestInit) => Promise<any>,
): Promise<Line> {
  const origin = new URL(a.url()).origin
  const { items } = await rest(`/transactions?accountId=${accountId}&limit=10`)
  const row = items.find((t: { splits: unknown[] }) => t.splits.length === 0).id as string
  for (const page of [a, b]) {
    await page.goto(`${origin}/app/accounts/${accountId}`)
    await page.locator(`tr.txn-row[data-id="${row}"]`).waitFor({ timeout: 60_000 })
  }
  const samples: number[] = []
  const edit = async (i: number) => {
    const memo = `bench edit ${Date.now()} ${i}`
    // B watches its row; A edits; B answers the wall-clock time it showed the memo.
    await b.evaluate(
      ({ row, memo }) => {
        const w = window as unknown as { seenAt?: Promise<number> }
        w.seenAt = new Promise<number>((resolve) => {
          const observer = new MutationObserver(() => {
            const cell = document.querySelector(`tr.txn-row[data-id="${row}"] .memo`)
            if (cell?.textContent?.trim() !== memo) return
            observer.disconnect()
            requestAnimationFrame(() => resolve(performance.timeOrigin + performance.now()))
          })
          observer.observe(document.body, { childList: true, subtree: true, characterData: true })
        })
      },
      { row, memo },
    )
    const sentAt = await a.evaluate(
      async ({ row, memo }) => {
        const hearth = (globalThis as unknown as { hearth: any }).hearth
        const at = performance.timeOrigin + performance.now()
        await hearth.mutate.transactions.update({ id: row, memo })
        return at
      },
      { row, memo },
    )
    const seenAt = await b.evaluate(() => (window as unknown as { seenAt: Promise<number> }).seenAt)
    return seenAt - sentAt
  }
  for (let i = 0; i < RUNS.edits + 3; i++) {
    const ms = await edit(i)
    if (i >= 3) samples.push(ms)
  }
  if (args.profile) {
    await profiled(a, 'edit (sending device)', () => profiled(b, 'edit (receiving device)', () => edit(-1)))
  }
  let n = 0
  return {
    store,
    measure: 'edit on one device shown on the other',
    timing: summarize(samples),
    baseline: 'REST PATCH of the same row',
    base: await time(
      () => rest(`/transactions/${row}`, { method: 'PATCH', body: JSON.stringify({ memo: `rest ${n++}` }) }),
      { runs: RUNS.edits, warmup: 3 },
    ),
    targetMs: TARGETS.editMs,
  }
}

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
}

/** Runs `work` under Chrome's sampling profiler and prints the 15 functions with the most self time. */
async function profiled<T>(page: Page, what: string, work: () => Promise<T>): Promise<T> {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('Profiler.enable')
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 })
  await cdp.send('Profiler.start')
  const result = await work()
  const { profile } = await cdp.send('Profiler.stop')
  await cdp.detach()
  const nodes = new Map<number, ProfileNode>((profile.nodes as ProfileNode[]).map((n) => [n.id, n]))
  const self = new Map<string, number>()
  const deltas = profile.timeDeltas ?? []
  profile.samples?.forEach((id, i) => {
    const frame = nodes.get(id)!.callFrame
    const name = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').pop()}:${frame.lineNumber + 1}`
    self.set(name, (self.get(name) ?? 0) + (deltas[i + 1] ?? 0) / 1000)
  })
  const total = [...self.values()].reduce((x, y) => x + y, 0)
  console.log(`profile of ${what}: ${total.toFixed(0)} ms sampled; most self time:`)
  for (const [name, ms] of [...self].sort((x, y) => y[1] - x[1]).slice(0, 15))
    console.log(`  ${ms.toFixed(1).padStart(8)} ms  ${name}`)
  return result
}

function summarize(samples: number[]): Timing {
  const sorted = [...samples].sort((x, y) => x - y)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
  return { runs: sorted.length, medianMs: at(0.5), p95Ms: at(0.95), p99Ms: at(0.99) }
}

function printLines(lines: Line[]): void {
  const header = ['store', 'measure', 'runs', 'p50 ms', 'p99 ms', 'baseline', 'baseline p50 ms', 'target']
  const cells = lines.map((l) => [
    l.store,
    l.measure,
    String(l.timing.runs),
    l.timing.medianMs.toFixed(1),
    l.timing.p99Ms.toFixed(1),
    l.baseline,
    l.base.medianMs.toFixed(1),
    `${l.timing.medianMs < l.targetMs ? 'met' : 'MISSED'} (< ${l.targetMs} ms)`,
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)))
  const fmt = (c: string[]) => `| ${c.map((x, i) => x.padEnd(widths[i]!)).join(' | ')} |`
  console.log(fmt(header))
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`)
  for (const c of cells) console.log(fmt(c))
  console.log(
    `load average: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  )
}

await main()
