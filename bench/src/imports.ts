import { type HouseholdContext, operations, runMutation, runQuery, SCOPES, type Store } from '@hearth/engine'
import { sql } from 'kysely'
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
 * `npx tsx bench/src/imports.ts [--store pglite|postgres|both]`: preview and commit of a
 * 10,000-row OFX 1.02 file into an account holding 100,000 rows, with 200 enabled rules, beside
 * bulk create of the same 10,000 rows (20 requests of 500, the engine's own import path without a
 * file) in the same run. Between commits the batch is undone, so each commit meets the same
 * ledger. PGlite is the store a device runs.
 */
async function main(): Promise<void> {
  const { stores } = benchArgs()
  const rows: Comparison[] = []
  for (const name of stores) {
    const { store, drop } = await openScratchStore(name, 'imports')
    try {
      rows.push(...(await measure(name, store)))
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

async function measure(name: string, store: Store): Promise<Comparison[]> {
  const profile = PROFILE ? new StatementProfile() : null
  const db = profile ? store.db.withPlugin(profile) : store.db
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
  profile?.take()
  const names = payees.map((p) => p.name)
  // Each round brings the same rows under its own FITIDs, so every preview reads a file the
  // process has not read before (a commit takes the statement its preview read).
  const fileOf = (r: number) => ({
    accountId: account,
    format: 'ofx' as const,
    content: ofxFile(FILE_ROWS, names, `F${r}`),
  })
  let file = fileOf(0)
  console.log(
    `[${name}] file of ${FILE_ROWS} rows, ${file.content.length} characters; ledger ${LEDGER} rows, ${RULES} rules`,
  )

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
    const rows = plan.rows.map((row, i) => ({
      id: id(),
      accountId: account,
      date: row.date!,
      amountCents: Number(row.amountCents),
      payeeName: row.payee!,
      importedId: `B${r}-${i}`,
    }))
    started = performance.now()
    for (let i = 0; i < rows.length; i += 500)
      await run(operations.transactions.bulkCreate, { transactions: rows.slice(i, i + 500) })
    const bulkMs = performance.now() - started
    profile?.print(`[${name}] run ${r} bulk create`)
    await sql`update transactions set deleted_at = now(), imported_id = null where household_id = ${ctx.householdId} and imported_id like ${`B${r}-%`}`.execute(
      db,
    )
    console.log(
      `[${name}] run ${r}${r === 0 ? " (warm-up, not counted: its commit makes the file's payees, about 8,800)" : ''}: preview ${previewMs.toFixed(0)} ms, commit ${commitMs.toFixed(0)} ms, bulk create ${bulkMs.toFixed(0)} ms`,
    )
    // The first round warms caches and plans; it is not counted.
    if (r === 0) continue
    preview.push(previewMs)
    commit.push(commitMs)
    bulk.push(bulkMs)
  }
  const baseline = timing(bulk)
  return [
    {
      store: name,
      measure: `preview ${FILE_ROWS}-row OFX (vs bulk create of the rows)`,
      engine: timing(preview),
      baseline,
      targetMs: TARGET_MS,
    },
    {
      store: name,
      measure: `commit ${FILE_ROWS}-row OFX (vs bulk create of the rows)`,
      engine: timing(commit),
      baseline,
      targetMs: TARGET_MS,
    },
  ]
}

await main()
