import { Worker } from 'node:worker_threads'
import {
  generateInsights,
  type HouseholdContext,
  operations,
  runMutation,
  SCOPES,
  type Store,
} from '@hearth/engine'
import { loadConfig, mintApiKey, startServer } from '@hearth/server'
import { sql } from 'kysely'
import pino from 'pino'
import { ulid } from 'ulidx'
import { evaluate, tally } from '../../server/src/ai/offline/evaluation/evaluate.ts'
import { type HouseholdPlan, planHousehold } from '../../server/src/ai/offline/evaluation/household-plan.ts'
import { evaluationQuestions } from '../../server/src/ai/offline/evaluation/questions.ts'
import { seedHousehold } from '../../server/src/ai/offline/evaluation/seed.ts'
import { benchArgs, openScratchStore } from './bench-store.ts'
import { type Comparison, printReport, time } from './stats.ts'

const TARGETS = { firstEventMs: 100, answerMs: 300, insightsMs: 5000 }
/** The household of the evaluation set, at the size issue 40 measures (rows over 15 months). */
const TRANSACTIONS = 50_400
/** Questions timed one by one: a spending total, a breakdown, a payee, a comparison, an average, the budget. */
const QUESTIONS = [
  'how much did we blow on dinning out last mo',
  "break down last month's spending by category",
  'what did we pay FreshMart this year',
  'how does this month stack up against last month?',
  'avg per month on groceries',
  'how much is left in groceries',
  'which payee did we pay the most last month?',
  'what bills are coming up?',
]

async function main(): Promise<void> {
  const { stores } = benchArgs()
  const rows: Comparison[] = []
  for (const name of stores) {
    const { store, drop } = await openScratchStore(name, 'assistant', { durable: false })
    try {
      const seeded = await seed(store)
      const measured = await measure(name, store, seeded)
      rows.push(...measured)
      printReport(measured)
    } finally {
      await store.close()
      await drop()
    }
  }
  if (stores.length > 1) printReport(rows)
}

// Dropping the scratch database ends its sessions; a pool connection told so is not an error here.
process.on('uncaughtException', (error: Error & { code?: string }) => {
  if (error.code === '57P01') return
  throw error
})

interface Seeded {
  ctx: HouseholdContext
  token: string
  plan: HouseholdPlan
}

async function seed(store: Store): Promise<Seeded> {
  const userId = ulid()
  const householdId = ulid()
  const actor = { userId, scopes: [...SCOPES], now: new Date() }
  const ctx: HouseholdContext = { ...actor, householdId, role: 'owner' }
  const run = (mutator: any, args: unknown) => runMutation(store.db, mutator, args, ctx)
  await runMutation(store.db, operations.users.create, { id: userId, name: 'Bench owner' }, actor)
  await run(operations.households.create, { id: householdId, name: 'Assistant bench', baseCurrency: 'USD' })
  const minted = mintApiKey()
  await runMutation(
    store.db,
    operations.apiKeys.create,
    { id: ulid(), name: 'bench', scopes: [...SCOPES], keyHash: minted.hash, prefix: minted.prefix },
    actor,
  )
  await run(operations.aiConsent.grant, {})
  const plan = planHousehold(new Date().toISOString().slice(0, 10), TRANSACTIONS)
  await seedHousehold(store, ctx, plan)
  // As the server's store.maintain job does at start and every ten minutes: a store that has run
  // a while is vacuumed (so index-only scans need not visit the table), not just analyzed.
  await sql`vacuum analyze`.execute(store.db)
  return { ctx, token: minted.token, plan }
}

/** Asks the whole evaluation set and prints right, declined and wrong per intent. */
async function understanding(store: string, url: string, token: string, plan: HouseholdPlan): Promise<void> {
  const start = performance.now()
  const judged = await evaluate(url, token, plan, evaluationQuestions(plan.today))
  const seconds = ((performance.now() - start) / 1000).toFixed(1)
  console.log(
    `\n${store}: evaluation set, ${judged.length} questions over ${plan.rows.length} rows (${seconds} s)`,
  )
  console.log(['intent', 'right', 'declined', 'wrong'].map((h) => h.padEnd(14)).join(''))
  for (const [intent, t] of tally(judged)) {
    console.log([intent, t.right, t.declined, t.wrong].map((c) => String(c).padEnd(14)).join(''))
  }
  const all = tally(judged).get('all')!
  console.log(
    `right ${((100 * all.right) / judged.length).toFixed(1)}% (target >= 90%), wrong ${all.wrong} (target 0)`,
  )
  for (const j of judged.filter((x) => x.verdict === 'wrong')) {
    console.log(`WRONG: ${j.question}\n  wanted ${j.wanted.join(' | ')}\n  got ${j.answer.slice(0, 200)}`)
  }
}

/**
 * The client, on a thread of its own. The server runs in this process, and the embedded store
 * computes on its thread: a client sharing that thread could not read the first event until the
 * answer's queries were done, wherever the server had sent it. A browser or an app is another
 * process; a worker thread has its own event loop, as they do.
 */
const CLIENT = `
const { parentPort } = require('node:worker_threads')
parentPort.on('message', async ({ id, url, token, message }) => {
  try {
    const start = performance.now()
    const res = await fetch(url + '/households/current/ai/chat', {
      method: 'POST',
      headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' },
      body: JSON.stringify({ message }),
    })
    if (res.status !== 201) throw new Error('chat answered ' + res.status + ': ' + (await res.text()))
    const reader = res.body.getReader()
    const decoder = new TextDecoder()
    let first = 0
    let text = ''
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      if (!first) first = performance.now() - start
      text += decoder.decode(value, { stream: true })
    }
    if (!text.includes('event: message.completed')) throw new Error('no completed turn: ' + text.slice(-300))
    parentPort.postMessage({ id, first, whole: performance.now() - start })
  } catch (error) {
    parentPort.postMessage({ id, error: String(error) })
  }
})`

/** Posts chat turns from the client thread; each resolves the times to the first event and to the end of the stream. */
function chatClient(): {
  turn(url: string, token: string, message: string): Promise<{ first: number; whole: number }>
  close(): Promise<number>
} {
  const worker = new Worker(CLIENT, { eval: true })
  const waiting = new Map<
    number,
    { resolve(t: { first: number; whole: number }): void; reject(e: Error): void }
  >()
  let next = 0
  worker.on('message', (m: { id: number; first: number; whole: number; error?: string }) => {
    const w = waiting.get(m.id)!
    waiting.delete(m.id)
    if (m.error) w.reject(new Error(m.error))
    else w.resolve({ first: m.first, whole: m.whole })
  })
  return {
    turn: (url, token, message) =>
      new Promise((resolve, reject) => {
        const id = next++
        waiting.set(id, { resolve, reject })
        worker.postMessage({ id, url, token, message })
      }),
    close: () => worker.terminate(),
  }
}

async function measure(name: string, store: Store, { ctx, token, plan }: Seeded): Promise<Comparison[]> {
  const config = {
    ...loadConfig({}),
    port: 0,
    ai: {
      provider: { kind: 'offline' as const },
      caps: {
        userDailyRequests: 0,
        userDailyTokens: 0,
        householdMonthlyRequests: 0,
        householdMonthlyTokens: 0,
      },
    },
  }
  const server = await startServer(config, {
    store,
    logger: pino({ level: process.env.BENCH_LOG_LEVEL ?? 'silent' }),
  })
  const out: Comparison[] = []
  const client = chatClient()
  try {
    await understanding(name, server.url, token, plan)
    const floor = await time(async () => {
      const res = await fetch(`${server.url}/households/current/ai/consent`, {
        headers: { authorization: `Bearer ${token}` },
      })
      await res.text()
    })
    const rawSum = await time(() =>
      sql`select sum(amount_cents) from transactions where household_id = ${ctx.householdId}
        and date >= current_date - 365 and amount_cents < 0`.execute(store.db),
    )
    for (const question of QUESTIONS) {
      const firsts: number[] = []
      const wholes: number[] = []
      const timing = await time(
        async () => {
          const t = await client.turn(server.url, token, question)
          firsts.push(t.first)
          wholes.push(t.whole)
        },
        { runs: 20, warmup: 2 },
      )
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
      const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!
      const recent = (xs: number[]) => xs.slice(-timing.runs)
      out.push({
        store: name,
        measure: `first SSE event: "${question}"`,
        engine: {
          runs: timing.runs,
          medianMs: median(recent(firsts)),
          p95Ms: p95(recent(firsts)),
          p99Ms: p95(recent(firsts)),
        },
        baseline: floor,
        targetMs: TARGETS.firstEventMs,
      })
      out.push({
        store: name,
        measure: `whole answer: "${question}"`,
        engine: {
          runs: timing.runs,
          medianMs: median(recent(wholes)),
          p95Ms: p95(recent(wholes)),
          p99Ms: p95(recent(wholes)),
        },
        baseline: rawSum,
        targetMs: TARGETS.answerMs,
      })
    }
    out.push({
      store: name,
      measure: `insights generation (${plan.rows.length} rows)`,
      engine: await time(
        async () => {
          await sql`delete from ai_insights where household_id = ${ctx.householdId}`.execute(store.db)
          await generateInsights(store.db, ctx.householdId, new Date().toISOString().slice(0, 10), new Date())
        },
        { runs: 3, warmup: 1 },
      ),
      baseline: await time(
        () =>
          sql`select count(*) from transactions where household_id = ${ctx.householdId}`.execute(store.db),
        { runs: 3, warmup: 1 },
      ),
      targetMs: TARGETS.insightsMs,
    })
  } finally {
    await client.close()
    await server.close()
  }
  return out
}

await main()
