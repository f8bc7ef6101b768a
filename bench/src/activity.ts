/**
 * `npm run bench:activity [-- --store pglite|postgres|both]`: what recording the activity costs a
 * REST write, and how fast one transaction's history reads among many entries (issue 43).
 *
 * Writes: two servers in this process, one recording activity and one with it off (the session
 * setting `hearth.activity = 'off'`, on PostgreSQL set on its database before it starts), each on
 * a store of its own, take the same writes in alternating blocks, so the machine's noise falls on
 * both alike. Target: p50 with activity at most 10 % above without.
 *
 * Reads: 100,000 entries are added to the recording server's household (each with one row image
 * of its own tag), then `GET H/activity?transactionId=…` for one transaction with four entries (its
 * creation and three edits, the edits after the seeded entries) is timed, over HTTP and, for
 * comparison, in the engine alone. Target: p50 at most 10 ms.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { operations, runQuery, SCOPES } from '@hearth/engine'
import { loadConfig, mintApiKey, type RunningServer, startServer } from '@hearth/server'
import { sql } from 'kysely'
import pino from 'pino'
import { benchArgs, type StoreName, scratchPostgres } from './bench-store.ts'
import { type Timing, time } from './stats.ts'

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 12)
const PER_BLOCK = 25
const ENTRIES = 100_000
const TARGETS = { writeRatio: 1.1, readMs: 10 }

interface Side {
  server: RunningServer
  headers: Record<string, string>
  accountId: string
  transactionId: string
  /** The transaction whose history is read: created, then edited a few times among the seeded entries. */
  historyId: string
}

async function main(): Promise<void> {
  const { stores } = benchArgs()
  for (const name of stores) await benchStore(name)
}

async function benchStore(name: StoreName): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'hearth-bench-activity-'))
  const scratch =
    name === 'postgres'
      ? [
          await scratchPostgres('hearth_bench_activity_on'),
          await scratchPostgres('hearth_bench_activity_off'),
        ]
      : null
  const sides: Side[] = []
  try {
    for (const [i, label] of (['on', 'off'] as const).entries()) {
      if (scratch && label === 'off') {
        const db = new URL(scratch[i]!.url).pathname.slice(1)
        await sql`alter database ${sql.id(db)} set hearth.activity = 'off'`.execute(sides[0]!.server.store.db)
      }
      sides.push(
        await startSide(scratch ? { DATABASE_URL: scratch[i]!.url } : { HEARTH_DATA_DIR: join(work, label) }),
      )
      if (!scratch && label === 'off')
        await sql`set hearth.activity = 'off'`.execute(sides[1]!.server.store.db)
    }
    const [on, off] = sides as [Side, Side]
    const writes = { create: [[], []] as number[][], update: [[], []] as number[][] }
    let n = 0
    for (let block = 0; block < BLOCKS; block++) {
      for (const [s, side] of [on, off].entries()) {
        for (let i = 0; i < PER_BLOCK; i++) {
          n++
          writes.create[s]!.push(await timed(() => create(side, n)))
          writes.update[s]!.push(await timed(() => update(side, n)))
        }
      }
    }
    const household = (
      await on.server.store.db.selectFrom('households').select('id').executeTakeFirstOrThrow()
    ).id
    const owner = (
      await on.server.store.db.selectFrom('memberships').select('user_id').executeTakeFirstOrThrow()
    ).user_id
    // The machine's load in the same run: an HTTP round trip that never reaches the store.
    const floor = await time(
      async () => {
        const res = await fetch(`${on.server.url}/households/current`)
        if (res.status !== 401) throw new Error(`expected 401, got ${res.status}`)
        await res.arrayBuffer()
      },
      { runs: 200, warmup: 20 },
    )
    const onCount = await count(on.server, 'activity')
    const offCount = await count(off.server, 'activity')

    await seedEntries(on, ENTRIES)
    // The same read in the engine alone, among the same entries: what HTTP adds is the rest.
    const engineRead = await time(
      () =>
        runQuery(
          on.server.store.db,
          operations.activity.list,
          { transactionId: on.historyId },
          { userId: owner, householdId: household, role: 'owner', scopes: SCOPES, now: new Date() },
        ),
      { runs: 200, warmup: 20 },
    )
    // An authenticated read of next to nothing (the household's tags): the REST stack's own cost
    // (authentication, membership, middleware) that every call pays, whatever it reads.
    const authed = await time(
      async () => {
        const res = await fetch(`${on.server.url}/households/current/tags`, { headers: on.headers })
        if (res.status !== 200) throw new Error(`tags answered ${res.status}`)
        await res.arrayBuffer()
      },
      { runs: 200, warmup: 20 },
    )
    const read: Timing = await time(
      async () => {
        const res = await fetch(
          `${on.server.url}/households/current/activity?transactionId=${on.historyId}`,
          {
            headers: on.headers,
          },
        )
        const body = (await res.json()) as { items: unknown[] }
        if (res.status !== 200 || body.items.length === 0) throw new Error(`read answered ${res.status}`)
      },
      { runs: 200, warmup: 20 },
    )

    console.log(
      `\n## ${name}: activity on beside off (${BLOCKS * PER_BLOCK} of each write per side, interleaved)`,
    )
    console.log(
      `entries recorded: on ${onCount}, off ${offCount}; HTTP floor (401) p50 ${f(floor.medianMs)} ms`,
    )
    console.log('| write | p50 on ms | p50 off ms | on/off | p99 on ms | p99 off ms | target |')
    console.log('|---|---|---|---|---|---|---|')
    for (const [what, [a, b]] of Object.entries(writes) as [string, [number[], number[]]][]) {
      const ratio = quantile(a, 0.5) / quantile(b, 0.5)
      console.log(
        `| ${what} | ${f(quantile(a, 0.5))} | ${f(quantile(b, 0.5))} | ${ratio.toFixed(3)} | ${f(quantile(a, 0.99))} | ${f(quantile(b, 0.99))} | ≤ ${TARGETS.writeRatio} ${ratio <= TARGETS.writeRatio ? 'met' : 'MISSED'} |`,
      )
    }
    const total = await count(on.server, 'activity')
    console.log(
      `the same read in the engine, without HTTP: p50 ${f(engineRead.medianMs)} ms, p95 ${f(engineRead.p95Ms)} ms; an authenticated GET H/tags (the REST stack alone): p50 ${f(authed.medianMs)} ms`,
    )
    console.log(
      `GET H/activity?transactionId (one transaction among ${total} entries): p50 ${f(read.medianMs)} ms, p95 ${f(read.p95Ms)} ms, p99 ${f(read.p99Ms)} ms; target ≤ ${TARGETS.readMs} ms ${read.medianMs <= TARGETS.readMs ? 'met' : 'MISSED'}`,
    )
  } finally {
    for (const side of sides.reverse()) await side.server.close()
    for (const s of scratch ?? []) await s.drop()
    rmSync(work, { recursive: true, force: true })
  }
}

/** A server on its own store whose first start makes the owner and this key, with an account and a row. */
async function startSide(env: Record<string, string>): Promise<Side> {
  const token = mintApiKey().token
  const config = loadConfig({ ...env, HEARTH_INIT_OWNER_TOKEN: token })
  const server = await startServer(
    { ...config, port: 0, host: '127.0.0.1' },
    { logger: pino({ level: 'silent' }) },
  )
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${server.url}/households/current${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    })
    if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${await res.text()}`)
    return (await res.json()) as { id: string }
  }
  const account = await post('/accounts', { name: 'Checking', type: 'cash' })
  const row = await post('/transactions', { accountId: account.id, amountCents: -100, date: '2026-01-05' })
  const history = await post('/transactions', {
    accountId: account.id,
    amountCents: -200,
    date: '2026-01-04',
  })
  return { server, headers, accountId: account.id, transactionId: row.id, historyId: history.id }
}

async function create(side: Side, n: number): Promise<void> {
  const res = await fetch(`${side.server.url}/households/current/transactions`, {
    method: 'POST',
    headers: side.headers,
    body: JSON.stringify({ accountId: side.accountId, amountCents: -(n % 5000) - 1, date: '2026-01-06' }),
  })
  if (res.status !== 201) throw new Error(`create answered ${res.status}`)
  await res.arrayBuffer()
}

async function update(side: Side, n: number, id = side.transactionId): Promise<void> {
  const res = await fetch(`${side.server.url}/households/current/transactions/${id}`, {
    method: 'PATCH',
    headers: side.headers,
    body: JSON.stringify({ memo: `edit ${n}`, amountCents: -(n % 700) - 1 }),
  })
  if (res.status !== 200) throw new Error(`update answered ${res.status}`)
  await res.arrayBuffer()
}

/**
 * Adds `n` entries to the household, each a tag created at a version of its own past the
 * household's clock (the clock moves past them too), so the target transaction's few entries sit
 * among them.
 */
async function seedEntries(side: Side, n: number): Promise<void> {
  const db = side.server.store.db
  const household = (await db.selectFrom('households').select('id').executeTakeFirstOrThrow()).id
  await db.transaction().execute(async (tx) => {
    const { rows } = await sql<{ version: string }>`
      update household_clock set version = version + ${n} where household_id = ${household}
      returning version - ${n} as version`.execute(tx)
    const base = Number(rows[0]!.version)
    await sql`insert into activity (household_id, version, id, occurred_at, operation, scope, user_id, actor_kind, actor_ref)
      select ${household}, ${base} + g, lpad(g::text, 26, '0'), now(), 'tags.create', 'write:tags', 'bench', 'key', null
      from generate_series(1, ${n}) g`.execute(tx)
    await sql`insert into activity_changes (household_id, version, table_name, row_id, before, after)
      select ${household}, ${base} + g, 'tags', 'tag' || g, null, jsonb_build_object('id', 'tag' || g, 'name', 'seeded ' || g)
      from generate_series(1, ${n}) g`.execute(tx)
  })
  await sql`analyze activity`.execute(db)
  await sql`analyze activity_changes`.execute(db)
  // The target transaction's newest entries come after the seeded ones, as in a real history.
  for (let i = 0; i < 3; i++) await update(side, 100_000 + i, side.historyId)
}

async function count(server: RunningServer, table: 'activity'): Promise<number> {
  const row = await server.store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const start = performance.now()
  await fn()
  return performance.now() - start
}

function quantile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

const f = (ms: number) => ms.toFixed(2)

await main()
