import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHearthWith, type Hearth, nodePlatform } from '@hearth/client'
import {
  type ActorContext,
  type HouseholdContext,
  operations,
  runMutation,
  runQuery,
  SCOPES,
  type Store,
} from '@hearth/engine'
import { loadConfig, mintApiKey, startServer } from '@hearth/server'
import { type Kysely, sql } from 'kysely'
import pino from 'pino'
import { monotonicFactory } from 'ulidx'
import { benchArgs, openScratchStore } from './bench-store.ts'
import { StatementProfile } from './statement-profile.ts'
import { type Comparison, printReport, prng, type Timing } from './stats.ts'

/** The issue's figures: a 10,000-row file, a 100,000-row account, 200 rules, each step < 3 s. */
const FILE_ROWS = Number(process.env.IMPORTS_BENCH_ROWS ?? 10_000)
const LEDGER = Number(process.env.IMPORTS_BENCH_LEDGER ?? 100_000)
const RULES = 200
const PAYEES = 400
const TARGET_MS = 3000
const RUNS = Number(process.env.IMPORTS_BENCH_RUNS ?? 3)
/** `IMPORTS_BENCH_PROFILE=1`: also print each step's statements (count, time to answer, rows). */
const PROFILE = process.env.IMPORTS_BENCH_PROFILE === '1'

const WORDS = ['market', 'shop', 'cafe', 'online', 'services', 'fuel', 'pharmacy', 'bakery', 'cinema', 'taxi']

/**
 * `npx tsx bench/src/imports.ts [--store pglite|postgres|both|device]`: preview and commit of a
 * 10,000-row OFX 1.02 file into an account holding 100,000 rows, with 200 enabled rules, beside
 * bulk create of the same 10,000 rows (20 requests of 500, the engine's own import path without a
 * file) in the same run. Between commits the batch is undone, so each commit meets the same
 * ledger. `pglite` and `postgres` run the engine's server path on that store; `device` seeds a
 * PGlite server store, syncs a real SDK device (`@hearth/client`, its own PGlite folder and file
 * queue) from an in-process server, takes it offline and runs the same steps as device calls.
 */
async function main(): Promise<void> {
  const { stores } = benchArgs(['device'])
  const rows: Comparison[] = []
  for (const name of stores) {
    const { store, drop } = await openScratchStore(name === 'device' ? 'pglite' : name, 'imports')
    try {
      rows.push(...(name === 'device' ? await measureDevice(store) : await measure(name, store)))
    } finally {
      await store.close()
      // `IMPORTS_BENCH_KEEP=1` keeps the seeded store, to look at its statements afterwards.
      if (process.env.IMPORTS_BENCH_KEEP === '1') console.log(`[${name}] kept: ${store.location}`)
      else await drop()
    }
  }
  printReport(rows)
}

/** An OFX 1.02 file of `n` card rows, in the SGML shape banks send, FITIDs prefixed by `tag`. */
function ofxFile(n: number, names: readonly string[], tag: string): string {
  const random = prng(78)
  const lines = [
    'OFXHEADER:100',
    'DATA:OFXSGML',
    'VERSION:102',
    '',
    '<OFX>',
    '<BANKMSGSRSV1>',
    '<STMTTRNRS>',
    '<STMTRS>',
    '<CURDEF>EUR',
    '<BANKACCTFROM>',
    '<ACCTID>12345',
    '</BANKACCTFROM>',
    '<BANKTRANLIST>',
  ]
  for (let i = 0; i < n; i++) {
    const day = String(1 + (i % 28)).padStart(2, '0')
    const cents = Math.floor(random() * 20_000) + 100
    lines.push(
      '<STMTTRN>',
      '<TRNTYPE>DEBIT',
      `<DTPOSTED>202611${day}`,
      `<TRNAMT>-${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`,
      `<FITID>${tag}-${i}`,
      `<NAME>${names[Math.floor(random() * names.length)]!.toUpperCase()} #${1000 + (i % 97)}`,
      '</STMTTRN>',
    )
  }
  lines.push(
    '</BANKTRANLIST>',
    '<LEDGERBAL>',
    '<BALAMT>0.00',
    '<DTASOF>20261130',
    '</LEDGERBAL>',
    '</STMTRS>',
    '</STMTTRNRS>',
    '</BANKMSGSRSV1>',
    '</OFX>',
  )
  return lines.join('\r\n')
}

function timing(samples: number[]): Timing {
  const s = [...samples].sort((a, b) => a - b)
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!
  return { runs: s.length, medianMs: at(0.5), p95Ms: at(0.95), p99Ms: at(0.99) }
}

/** What `seed` made: the household, its owner, the account the files go to, and the files. */
interface Seeded {
  ctx: HouseholdContext
  actor: ActorContext
  account: string
  id: () => string
  /** Round `r`'s file: the same rows each round, under the round's own FITIDs. */
  fileOf: (r: number) => { accountId: string; format: 'ofx'; content: string }
}

/** Seeds the household the issue names: 60 categories, 400 payees, 200 rules, 100,000 rows. */
async function seed(name: string, db: Kysely<any>): Promise<Seeded> {
  const random = prng(12)
  const id = monotonicFactory(() => random())
  const actor = { userId: id(), scopes: [...SCOPES], now: new Date() }
  const ctx: HouseholdContext = { ...actor, householdId: id(), role: 'owner' }
  const run = async (mutator: any, args: unknown): Promise<any> =>
    (await runMutation(db, mutator, args, { ...ctx, now: new Date() })).result
  await runMutation(db, operations.users.create, { id: actor.userId, name: 'Bench owner' }, actor)
  await run(operations.households.create, { id: ctx.householdId, name: 'Imports bench', baseCurrency: 'EUR' })
  const group = id()
  await run(operations.categoryGroups.create, { id: group, name: 'Everyday' })
  const categories: string[] = []
  for (let i = 0; i < 60; i++) {
    const c = id()
    await run(operations.categories.create, { id: c, groupId: group, name: `Category ${i + 1}` })
    categories.push(c)
  }
  const payees: { id: string; name: string }[] = []
  for (let i = 0; i < PAYEES; i++) {
    const p = { id: id(), name: `${WORDS[i % WORDS.length]} ${i + 1} ${WORDS[(i * 7) % WORDS.length]}` }
    await run(operations.payees.create, p)
    payees.push(p)
  }
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
  for (let i = 0; i < RULES; i++) {
    const predicate =
      i < 100
        ? {
            combinator: 'all',
            conditions: [
              {
                field: 'payee_name',
                op: 'contains',
                value: pick(payees).name.split(' ').slice(0, 2).join(' '),
              },
            ],
          }
        : i < 150
          ? {
              combinator: 'all',
              conditions: [{ field: 'payee_id', op: 'oneOf', value: [pick(payees).id, pick(payees).id] }],
            }
          : i < 180
            ? {
                combinator: 'all',
                conditions: [
                  { field: 'imported_payee', op: 'contains', value: pick(payees).name.toUpperCase() },
                ],
              }
            : {
                combinator: 'any',
                conditions: [
                  { field: 'outflow', op: 'approx', value: Math.floor(random() * 20_000) + 100 },
                  { field: 'memo', op: 'matches', value: `^ref ${i}\\d*$` },
                ],
              }
    await run(operations.rules.create, {
      id: id(),
      name: `Rule ${i + 1}`,
      predicate,
      action: { setCategoryId: pick(categories) },
      priority: i % 20,
    })
  }
  const account = id()
  await run(operations.accounts.create, { id: account, name: 'Checking', type: 'cash' })
  // The account's 100,000 rows: ten years of imported rows over the payees, some categorized.
  await sql`
    insert into transactions (household_id, id, account_id, date, amount_cents, payee_id, category_id, memo, status, source, kind, imported_id, created_at, updated_at)
    select ${ctx.householdId}, 'L' || lpad(n::text, 25, '0'), ${account},
           date '2016-01-01' + (n % 3650), -(100 + (n * 7919) % 20000),
           (array[${sql.join(payees.map((p) => p.id))}])[1 + n % ${payees.length}],
           case when n % 2 = 0 then (array[${sql.join(categories)}])[1 + n % ${categories.length}] end,
           case when n % 3 = 0 then 'ref ' || (n % 300) else null end, 'cleared', 'imported', 'normal', 'old-' || n, now(), now()
    from generate_series(1, ${LEDGER}) as n`.execute(db)
  await sql`analyze`.execute(db)
  const names = payees.map((p) => p.name)
  // Each round brings the same rows under its own FITIDs, so every preview reads a file the
  // process has not read before (a commit takes the statement its preview read).
  const fileOf = (r: number) => ({
    accountId: account,
    format: 'ofx' as const,
    content: ofxFile(FILE_ROWS, names, `F${r}`),
  })
  console.log(
    `[${name}] file of ${FILE_ROWS} rows, ${fileOf(0).content.length} characters; ledger ${LEDGER} rows, ${RULES} rules`,
  )
  return { ctx, actor, account, id, fileOf }
}

/** The plan's rows as bulk create takes them, 500 a request, as an import without a file is made. */
function bulkRequests(
  rows: readonly { date?: string | null; amountCents?: unknown; payee?: string | null }[],
  { account, id }: Seeded,
  tag: string,
) {
  const all = rows.map((row, i) => ({
    id: id(),
    accountId: account,
    date: row.date!,
    amountCents: Number(row.amountCents),
    payeeName: row.payee!,
    importedId: `${tag}-${i}`,
  }))
  const requests = []
  for (let i = 0; i < all.length; i += 500) requests.push({ transactions: all.slice(i, i + 500) })
  return requests
}

/** Removes round `tag`'s bulk-created rows, so the next round meets the same ledger. */
async function dropBulkRows(db: Kysely<any>, householdId: string, tag: string): Promise<void> {
  await sql`update transactions set deleted_at = now(), imported_id = null where household_id = ${householdId} and imported_id like ${`${tag}-%`}`.execute(
    db,
  )
}

function verdicts(store: string, preview: number[], commit: number[], bulk: number[]): Comparison[] {
  const baseline = timing(bulk)
  return [
    {
      store,
      measure: `preview ${FILE_ROWS}-row OFX (vs bulk create of the rows)`,
      engine: timing(preview),
      baseline,
      targetMs: TARGET_MS,
    },
    {
      store,
      measure: `commit ${FILE_ROWS}-row OFX (vs bulk create of the rows)`,
      engine: timing(commit),
      baseline,
      targetMs: TARGET_MS,
    },
  ]
}

async function measure(name: string, store: Store): Promise<Comparison[]> {
  const profile = PROFILE ? new StatementProfile() : null
  const db = profile ? store.db.withPlugin(profile) : store.db
  const seeded = await seed(name, db)
  const { ctx, id, fileOf } = seeded
  const run = async (mutator: any, args: unknown): Promise<any> =>
    (await runMutation(db, mutator, args, { ...ctx, now: new Date() })).result
  profile?.take()
  let file = fileOf(0)

  const preview: number[] = []
  const commit: number[] = []
  const bulk: number[] = []
  for (let r = 0; r <= RUNS; r++) {
    file = fileOf(r)
    let started = performance.now()
    const plan = await runQuery(db, operations.imports.preview, file, { ...ctx, now: new Date() })
    const previewMs = performance.now() - started
    profile?.print(`[${name}] run ${r} preview`)
    if (plan.counts.new !== FILE_ROWS)
      throw new Error(`expected ${FILE_ROWS} new rows, got ${JSON.stringify(plan.counts)}`)
    started = performance.now()
    const { batch } = await run(operations.imports.commit, { ...file, id: id(), planDigest: plan.digest })
    const commitMs = performance.now() - started
    profile?.print(`[${name}] run ${r} commit`)
    if (batch.createdCount !== FILE_ROWS) throw new Error(`committed ${batch.createdCount}`)
    await run(operations.imports.undo, { id: batch.id })
    profile?.take()
    // The same rows through bulk create, 500 a request, as an import without a file is made.
    const requests = bulkRequests(plan.rows, seeded, `B${r}`)
    started = performance.now()
    for (const request of requests) await run(operations.transactions.bulkCreate, request)
    const bulkMs = performance.now() - started
    profile?.print(`[${name}] run ${r} bulk create`)
    await dropBulkRows(db, ctx.householdId, `B${r}`)
    console.log(
      `[${name}] run ${r}${r === 0 ? " (warm-up, not counted: its commit makes the file's payees, about 8,800)" : ''}: preview ${previewMs.toFixed(0)} ms, commit ${commitMs.toFixed(0)} ms, bulk create ${bulkMs.toFixed(0)} ms`,
    )
    // The first round warms caches and plans; it is not counted.
    if (r === 0) continue
    preview.push(previewMs)
    commit.push(commitMs)
    bulk.push(bulkMs)
  }
  return verdicts(name, preview, commit, bulk)
}

/**
 * The same rounds on a device: a real SDK device (its own PGlite folder and file queue) syncs the
 * seeded household from a server in this process, goes offline, and runs preview, commit, undo
 * and bulk create as device calls (`applyOne`: undo images, deferred checks, the queue write).
 */
async function measureDevice(store: Store): Promise<Comparison[]> {
  const name = 'pglite (device, SDK)'
  const seeded = await seed(name, store.db)
  const { ctx, actor, id, fileOf } = seeded
  const key = mintApiKey()
  await runMutation(
    store.db,
    operations.apiKeys.create,
    { id: id(), name: 'imports bench', scopes: [...SCOPES], keyHash: key.hash, prefix: key.prefix },
    { ...actor, now: new Date() },
  )
  const server = await startServer(
    { ...loadConfig({}), port: 0, host: '127.0.0.1' },
    { store, logger: pino({ level: process.env.BENCH_LOG_LEVEL ?? 'silent' }) },
  )
  const folder = mkdtempSync(join(tmpdir(), 'hearth-bench-imports-device-'))
  // With IMPORTS_BENCH_PROFILE=1 the device's own store counts its statements.
  const profile = PROFILE ? new StatementProfile() : null
  const platform = profile
    ? {
        ...nodePlatform,
        openStore: async (location: string) => {
          const opened = await nodePlatform.openStore(location)
          return { ...opened, db: opened.db.withPlugin(profile) }
        },
      }
    : nodePlatform
  let device: Hearth | null = null
  try {
    let started = performance.now()
    device = await createHearthWith(platform, {
      serverUrl: server.url,
      token: key.token,
      household: ctx.householdId,
      store: folder,
      deviceName: 'imports bench',
    })
    await device.sync.whenSynced({ timeoutMs: 600_000 })
    console.log(
      `[${name}] first sync of the household (${LEDGER} rows) into a fresh replica: ${(performance.now() - started).toFixed(0)} ms`,
    )
    await device.sync.disconnect()
    profile?.take()

    const preview: number[] = []
    const commit: number[] = []
    const bulk: number[] = []
    for (let r = 0; r <= RUNS; r++) {
      const file = fileOf(r)
      started = performance.now()
      const plan = await device.query.imports.preview(file)
      const previewMs = performance.now() - started
      profile?.print(`[${name}] run ${r} preview`)
      if (plan.counts.new !== FILE_ROWS)
        throw new Error(`expected ${FILE_ROWS} new rows, got ${JSON.stringify(plan.counts)}`)
      started = performance.now()
      const { batch } = await device.mutate.imports.commit({ ...file, id: id(), planDigest: plan.digest })
      const commitMs = performance.now() - started
      profile?.print(`[${name}] run ${r} commit`)
      if (batch.createdCount !== FILE_ROWS) throw new Error(`committed ${batch.createdCount}`)
      started = performance.now()
      await device.mutate.imports.undo({ id: batch.id })
      const undoMs = performance.now() - started
      profile?.print(`[${name}] run ${r} undo`)
      const requests = bulkRequests(plan.rows, seeded, `B${r}`)
      started = performance.now()
      for (const request of requests) await device.mutate.transactions.bulkCreate(request)
      const bulkMs = performance.now() - started
      profile?.print(`[${name}] run ${r} bulk create`)
      // As the server path does: straight on the replica, which stays offline and is thrown away.
      await dropBulkRows(device.store.db, ctx.householdId, `B${r}`)
      console.log(
        `[${name}] run ${r}${r === 0 ? ' (warm-up, not counted)' : ''}: preview ${previewMs.toFixed(0)} ms, commit ${commitMs.toFixed(0)} ms, undo ${undoMs.toFixed(0)} ms, bulk create ${bulkMs.toFixed(0)} ms`,
      )
      if (r === 0) continue
      preview.push(previewMs)
      commit.push(commitMs)
      bulk.push(bulkMs)
    }
    return verdicts(name, preview, commit, bulk)
  } finally {
    await device?.close()
    await server.close()
    rmSync(folder, { recursive: true, force: true })
  }
}

await main()
