import { describe, expect, it } from 'vitest'
import { ageOfMoney, ageOfMoneySeries, type CashFlow } from '../budgets/age-of-money.ts'
import { addMonths, lastDayOf } from '../budgets/month.ts'
import {
  type AccountMonthTotal,
  balancesByMonth,
  cashFlowByMonth,
  netWorthOf,
  type RatesToBase,
} from './model.ts'

const rates = new Map([
  ['USD', '1'],
  ['EUR', '1.1'],
])

/** Net worth at each month's end, as the report computes it: balances rolled, then converted. */
function netWorthByMonth(months: string[], totals: AccountMonthTotal[], rates: RatesToBase) {
  return balancesByMonth(months, totals).map((balances, i) =>
    netWorthOf(months[i]!, balances.values(), rates),
  )
}

/** One account's totals: `''` before the first month, then by month. */
function account(accountId: string, currency: string, byMonth: [string, bigint][]): AccountMonthTotal[] {
  return byMonth.map(([month, cents]) => ({ accountId, currency, month, cents }))
}

describe('balancesByMonth and netWorthOf', () => {
  it('carries each balance month to month and splits assets from liabilities per account', () => {
    const points = netWorthByMonth(
      ['2026-01', '2026-02', '2026-03'],
      [
        // Checking: 1,000.00 before January, +50.00 in January, -2,000.00 in March.
        ...account('checking', 'USD', [
          ['', 100_000n],
          ['2026-01', 5_000n],
          ['2026-03', -200_000n],
        ]),
        // A euro card: -100.00 before, -3.33 in February; at 1.1 that is -110.00, then -113.663 -> -113.66.
        ...account('card', 'EUR', [
          ['', -10_000n],
          ['2026-02', -333n],
        ]),
        // Yen with no rate: left out, never guessed.
        ...account('yen', 'JPY', [['', 9_999_999n]]),
      ],
      rates,
    )
    expect(points).toEqual([
      { month: '2026-01', assetsCents: 105_000n, liabilitiesCents: 11_000n, netWorthCents: 94_000n },
      { month: '2026-02', assetsCents: 105_000n, liabilitiesCents: 11_366n, netWorthCents: 93_634n },
      // Checking went below zero: now a liability too.
      { month: '2026-03', assetsCents: 0n, liabilitiesCents: 106_366n, netWorthCents: -106_366n },
    ])
  })

  it('rounds each converted balance half away from zero', () => {
    const half = new Map([['GBP', '1.5']])
    const [point] = netWorthByMonth(
      ['2026-01'],
      [...account('up', 'GBP', [['', 5n]]), ...account('down', 'GBP', [['', -5n]])],
      half,
    )
    // 7.5 -> 8 and -7.5 -> -8.
    expect(point).toEqual({ month: '2026-01', assetsCents: 8n, liabilitiesCents: 8n, netWorthCents: 0n })
  })

  it('stays exact past 2^53', () => {
    const [point] = netWorthByMonth(
      ['2026-01'],
      account('big', 'EUR', [
        ['', 9_000_000_000_000n],
        ['2026-01', 9_000_000_000_000n],
      ]),
      new Map([['EUR', '1000.5']]),
    )
    expect(point!.netWorthCents).toBe(18_009_000_000_000_000n)
  })
})

describe('cashFlowByMonth', () => {
  it('converts each month and currency once, in and out apart, and leaves unknown rates out', () => {
    const points = cashFlowByMonth(
      ['2026-01', '2026-02'],
      [
        { month: '2026-01', currency: 'USD', inCents: 300_000n, outCents: 120_000n },
        // 10.01 in and 0.05 out in euros: 11.011 -> 11.01 and 0.055 -> 0.06.
        { month: '2026-01', currency: 'EUR', inCents: 1_001n, outCents: 5n },
        { month: '2026-02', currency: 'JPY', inCents: 50_000n, outCents: 0n },
        // Outside the months asked for.
        { month: '2026-03', currency: 'USD', inCents: 1n, outCents: 1n },
      ],
      rates,
    )
    expect(points).toEqual([
      { month: '2026-01', incomeCents: 301_101n, spendingCents: 120_006n, netCents: 181_095n },
      { month: '2026-02', incomeCents: 0n, spendingCents: 0n, netCents: 0n },
    ])
  })
})

describe('ageOfMoneySeries', () => {
  it('answers each day as ageOfMoney does on the flows up to it (worked example, window 2)', () => {
    const flows: CashFlow[] = [
      { date: '2026-01-01', amountCents: 1_000n },
      { date: '2026-01-11', amountCents: -500n }, // 10 days old
      { date: '2026-01-21', amountCents: 1_000n },
      { date: '2026-01-31', amountCents: -1_000n }, // 500 at 30 days, 500 at 10: 20
      { date: '2026-02-10', amountCents: -300n }, // from Jan 21: 20 days
    ]
    const series = ageOfMoneySeries(flows, ['2026-01-10', '2026-01-20', '2026-01-31', '2026-02-28'], 2)
    expect(series.map((p) => p?.days ?? null)).toEqual([null, null, 15, 20])
    expect(series[2]!.outflows.map((o) => o.date)).toEqual(['2026-01-11', '2026-01-31'])
  })

  it('equals ageOfMoney at every day of a random ledger', () => {
    let seed = 7
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0
      return seed % n
    }
    const day = (n: number) => new Date(Date.UTC(2026, 0, 1 + n)).toISOString().slice(0, 10)
    const flows: CashFlow[] = Array.from({ length: 300 }, (_, i) => ({
      id: String(i).padStart(4, '0'),
      date: day(rand(200)),
      amountCents: BigInt(rand(3) === 0 ? 1 + rand(90_000) : -(1 + rand(20_000))),
    })).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.id! < b.id! ? -1 : 1))
    const points = Array.from({ length: 30 }, (_, i) => day(i * 7))
    const series = ageOfMoneySeries(flows, points)
    points.forEach((p, i) => {
      expect(series[i], p).toEqual(ageOfMoney(flows.filter((f) => f.date <= p)))
    })
    expect(series.filter((s) => s !== null).length).toBeGreaterThan(20)
  })
})

describe('months', () => {
  it('knows month ends and steps across years', () => {
    expect([lastDayOf('2024-02'), lastDayOf('2025-02'), lastDayOf('2026-12')]).toEqual([
      '2024-02-29',
      '2025-02-28',
      '2026-12-31',
    ])
    expect([addMonths('2026-01', -1), addMonths('2026-11', 2), addMonths('2026-05', -17)]).toEqual([
      '2025-12',
      '2027-01',
      '2024-12',
    ])
  })
})
