import {
  type BacktestAsk,
  type BacktestErrors,
  backtestForecasts,
  type HouseholdContext,
  meanAbsoluteErrors,
  migrateToLatest,
  openPGliteStore,
  operations,
  runMutation,
  SAMPLE_TODAY,
  type SampleForecastKind,
  SCOPES,
  type Store,
  sampleForecastHousehold,
  seedSampleHousehold,
} from '@hearth/engine'
import { ulid } from 'ulidx'

/**
 * `npm run bench:forecasts -- [--seed N]` (issue 39's gate): on three generated households
 * (strongly seasonal, no seasonality, bills only), forecasts each of the last 12 complete months
 * as asked on its 1st, 10th and 27th, and as asked on the 27th of the month before, from rows
 * dated up to that day; mean absolute error per category against last month's spending and the
 * mean of the three last complete months. Fails (exit 1) unless in every household the method's
 * mean over categories is below both baselines', and the bills-only forecast equals the bills
 * exactly.
 */
const ASKS: BacktestAsk[] = [
  { day: 1, ahead: 0 },
  { day: 10, ahead: 0 },
  { day: 27, ahead: 0 },
  { day: 27, ahead: 1 },
]
const KINDS: SampleForecastKind[] = ['seasonal', 'steady', 'bills']

function addMonths(month: string, n: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number]
  const i = y * 12 + (m - 1) + n
  return `${Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`
}

async function newHousehold(store: Store): Promise<HouseholdContext> {
  const userId = ulid()
  const householdId = ulid()
  const actor = { userId, scopes: [...SCOPES], now: new Date(`${SAMPLE_TODAY}T12:00:00Z`) }
  await runMutation(store.db, operations.users.create, { id: userId, name: 'Bench' }, actor)
  const ctx: HouseholdContext = { ...actor, householdId, role: 'owner' }
  await runMutation(store.db, operations.households.create, { id: householdId, name: 'Forecast bench' }, ctx)
  return ctx
}

const units = (cents: number) => (cents / 100).toFixed(2)
const label = (a: BacktestAsk) => (a.ahead === 0 ? `day ${a.day}` : `day ${a.day}, next month`)

function verdict(e: Pick<BacktestErrors, 'method' | 'lastMonth' | 'trailing'>): string {
  if (e.method === 0 && e.lastMonth === 0 && e.trailing === 0) return 'tie (all exact)'
  return e.method < e.lastMonth && e.method < e.trailing ? 'yes' : 'no'
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--seed')
  const seed = at > 0 ? Number(process.argv[at + 1]) : 39
  const store = await openPGliteStore({ dataDir: 'memory://' })
  await migrateToLatest(store.db)
  const months = Array.from({ length: 12 }, (_, k) => addMonths(SAMPLE_TODAY.slice(0, 7), -12 + k))
  let passed = true
  for (const kind of KINDS) {
    const ctx = await newHousehold(store)
    const sample = sampleForecastHousehold(kind, seed)
    const seeded = performance.now()
    const ids = await seedSampleHousehold(store.db, ctx, sample)
    const names = new Map([...ids].map(([name, id]) => [id as string | null, name]))
    const started = performance.now()
    const observations = await backtestForecasts(store.db, ctx.householdId, months, ASKS, SAMPLE_TODAY)
    const ms = performance.now() - started
    console.log(
      `\n### ${kind}: ${sample.rows.length} rows (seeded in ${Math.round(started - seeded)} ms), ` +
        `${months.length * ASKS.length} forecasts in ${Math.round(ms)} ms\n`,
    )
    console.log('| category | method MAE | last month MAE | trailing 3 complete months MAE | beats both |')
    console.log('|---|---|---|---|---|')
    const errors = meanAbsoluteErrors(observations)
    const mean = { method: 0, lastMonth: 0, trailing: 0 }
    for (const [id, e] of [...errors].sort((a, b) => (names.get(a[0])! < names.get(b[0])! ? -1 : 1))) {
      mean.method += e.method / errors.size
      mean.lastMonth += e.lastMonth / errors.size
      mean.trailing += e.trailing / errors.size
      console.log(
        `| ${names.get(id)} | ${units(e.method)} | ${units(e.lastMonth)} | ${units(e.trailing)} | ${verdict(e)} |`,
      )
    }
    console.log(
      `| **mean over categories** | ${units(mean.method)} | ${units(mean.lastMonth)} | ${units(mean.trailing)} | ${verdict(mean)} |`,
    )
    if (verdict(mean) !== 'yes') passed = false
    const byAsk = ASKS.map((a) => {
      const e = meanAbsoluteErrors(observations.filter((o) => o.ask === a))
      const m = (k: 'method' | 'lastMonth' | 'trailing') =>
        [...e.values()].reduce((s, x) => s + x[k], 0) / e.size
      return `${label(a)}: ${units(m('method'))} / ${units(m('lastMonth'))} / ${units(m('trailing'))}`
    })
    console.log(`\nMean over categories by day asked (method / last month / trailing): ${byAsk.join('; ')}`)
    if (kind === 'bills') {
      const off = observations.filter((o) => o.method !== o.actual)
      console.log(`Bills-only forecasts that differ from the bills: ${off.length} of ${observations.length}`)
      if (off.length > 0) passed = false
    }
  }
  await store.close()
  console.log(`\nGate: ${passed ? 'passed' : 'FAILED'}`)
  if (!passed) process.exitCode = 1
}

await main()
