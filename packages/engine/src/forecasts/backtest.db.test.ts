import { newHousehold, sharedStore } from '@hearth/test/store'
import { describe, expect, it } from 'vitest'
import { addMonths } from '../budgets/month.ts'
import { type BacktestAsk, backtestForecasts, meanAbsoluteErrors, seedSampleHousehold } from './backtest.ts'
import { SAMPLE_TODAY, type SampleForecastKind, sampleForecastHousehold } from './sample-households.ts'

/** Asked on the 1st, 10th and 27th of the month forecast, and on the 27th of the month before. */
const ASKS: BacktestAsk[] = [
  { day: 1, ahead: 0 },
  { day: 10, ahead: 0 },
  { day: 27, ahead: 0 },
  { day: 27, ahead: 1 },
]

/** The last six complete months before the sample households' today. */
const MONTHS = Array.from({ length: 6 }, (_, k) => addMonths(SAMPLE_TODAY.slice(0, 7), -6 + k))

async function backtest(kind: SampleForecastKind) {
  const store = await sharedStore()
  const ctx = await newHousehold(store)
  await seedSampleHousehold(store.db, ctx, sampleForecastHousehold(kind))
  const observations = await backtestForecasts(store.db, ctx.householdId, MONTHS, ASKS, SAMPLE_TODAY)
  const errors = [...meanAbsoluteErrors(observations).values()]
  const mean = (k: 'method' | 'lastMonth' | 'trailing') =>
    errors.reduce((s, e) => s + e[k], 0) / errors.length
  return { observations, method: mean('method'), lastMonth: mean('lastMonth'), trailing: mean('trailing') }
}

describe('the forecast backtest (the direction bench/src/forecasts.ts gates on)', () => {
  it.each(['seasonal', 'steady'] as const)(
    'beats last month and the trailing three complete months in a %s household',
    async (kind) => {
      const r = await backtest(kind)
      expect(r.method).toBeLessThan(r.lastMonth)
      expect(r.method).toBeLessThan(r.trailing)
    },
    120_000,
  )

  it('forecasts a bills-only household to the cent, where the baselines miss', async () => {
    const r = await backtest('bills')
    expect(r.observations.filter((o) => o.method !== o.actual)).toEqual([])
    expect(r.lastMonth).toBeGreaterThan(0)
    expect(r.trailing).toBeGreaterThan(0)
  }, 120_000)
})
