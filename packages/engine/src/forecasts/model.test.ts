import { describe, expect, it } from 'vitest'
import { addMonths } from '../budgets/month.ts'
import {
  baseWindow,
  carryOver,
  correlation,
  type MonthSplit,
  projectRest,
  seasonalIndex,
  trailingMonths,
} from './model.ts'

const months = (entries: [string, number][]) =>
  new Map<string, MonthSplit>(entries.map(([m, late]) => [m, { early: 0, late }]))

describe('projecting the variable rest of a month', () => {
  it('averages what the three last complete months spent after the cut day', () => {
    const byMonth = months([
      ['2025-03', 3_000],
      ['2025-04', 6_000],
      ['2025-05', 9_000],
    ])
    // June, asked in June: March to May.
    expect(projectRest(byMonth, { month: '2025-06', lag: 1, firstMonth: '2024-01' })).toBe(6_000)
    // July, asked in June (lag 2): still March to May, never June, which is not over.
    expect(trailingMonths({ month: '2025-07', lag: 2 })).toEqual(['2025-05', '2025-04', '2025-03'])
    expect(projectRest(byMonth, { month: '2025-07', lag: 2, firstMonth: '2024-01' })).toBe(6_000)
    // A month with no spending counts as 0: May reads April, March and February, (6,000 + 3,000 + 0) / 3.
    expect(projectRest(byMonth, { month: '2025-05', lag: 1, firstMonth: '2024-01' })).toBe(3_000)
  })

  it('averages only the months the household has history for', () => {
    const byMonth = months([
      ['2025-04', 6_000],
      ['2025-05', 9_000],
    ])
    // History starts in April: (6,000 + 9,000) / 2, not / 3.
    expect(projectRest(byMonth, { month: '2025-06', lag: 1, firstMonth: '2025-04' })).toBe(7_500)
  })

  it('projects nothing for a category that spent nothing or took refunds', () => {
    expect(
      projectRest(months([['2025-05', -500]]), { month: '2025-06', lag: 1, firstMonth: '2025-05' }),
    ).toBe(0)
    expect(projectRest(new Map(), { month: '2025-06', lag: 1, firstMonth: '2025-05' })).toBe(0)
  })
})

/** Whole-month spending: `level` every month, times `season[month - 1]`. */
function totals(from: string, to: string, level: number, season: number[]): Map<string, number> {
  const out = new Map<string, number>()
  for (let m = from; m <= to; m = addMonths(m, 1)) out.set(m, level * season[Number(m.slice(5)) - 1]!)
  return out
}

describe('the base each category averages', () => {
  const plan = { month: '2025-01', lag: 1, firstMonth: '2023-01' }
  const history = (value: (i: number) => number) => {
    const t = new Map<string, number>()
    for (let i = 0; i < 24; i++) t.set(addMonths('2023-01', i), value(i))
    return (m: string) => t.get(m) ?? 0
  }

  it('is the last twelve months for spending that only varies around its level', () => {
    // 8,000 and 12,000 by turns for 19 months (too few to show a season): three months say 9,333
    // or 10,667 (2,667 off), twelve say 10,000 (2,000 off).
    expect(
      baseWindow(
        history((i) => (i % 2 ? 12_000 : 8_000)),
        { ...plan, firstMonth: '2023-06' },
      ),
    ).toBe(12)
  })

  it('is the last three months for spending that moved to a new level', () => {
    expect(
      baseWindow(
        history((i) => (i < 12 ? 5_000 : 10_000)),
        plan,
      ),
    ).toBe(3)
  })

  it('is three months with less than six months to judge by', () => {
    expect(
      baseWindow(
        history((i) => (i % 2 ? 12_000 : 8_000)),
        { ...plan, firstMonth: '2023-08' },
      ),
    ).toBe(3)
  })
})

describe('what the rest of a month gives back of an early surprise', () => {
  // Each month spends 10,000 in all; how much of it falls by the cut day varies.
  const split = (pairs: [number, number][]) =>
    new Map<string, MonthSplit>(
      pairs.map(([early, late], i) => [`2025-${String(i + 1).padStart(2, '0')}`, { early, late }]),
    )
  const held = split([
    [2_000, 8_000],
    [4_000, 6_000],
    [6_000, 4_000],
    [3_000, 7_000],
    [5_000, 5_000],
    [4_000, 6_000],
  ])
  const july = { month: '2025-07', lag: 1, firstMonth: '2025-01' }

  it('is all of it when the month total holds, none when the rest does not move with the start', () => {
    expect(carryOver(held, july)).toBe(1)
    const independent = split([
      [2_000, 6_000],
      [4_000, 6_000],
      [6_000, 6_000],
      [3_000, 6_000],
      [5_000, 6_000],
      [4_000, 6_000],
    ])
    expect(carryOver(independent, july)).toBe(0)
    // Fewer than six months of history: none.
    expect(carryOver(held, { ...july, firstMonth: '2025-02' })).toBe(0)
  })

  it('lowers the rest by what was spent early beyond the usual, and raises it for less', () => {
    // April to June: 4,000 early and 6,000 late on average.
    expect(projectRest(held, july, 4_000)).toBe(6_000)
    // 7,000 by the cut day, 3,000 more than usual: 6,000 - 3,000.
    expect(projectRest(held, july, 7_000)).toBe(3_000)
    expect(projectRest(held, july, 1_000)).toBe(9_000)
    // Never below nothing.
    expect(projectRest(held, july, 20_000)).toBe(0)
  })
})

describe('the seasonal index', () => {
  const december = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2]

  it('is 1 with one year of history, which cannot tell a season from noise', () => {
    const t = totals('2024-10', '2025-11', 10_000, december)
    expect(seasonalIndex((m) => t.get(m) ?? 0, { month: '2025-12', lag: 1, firstMonth: '2024-10' })).toBe(1)
  })

  it('takes a season seen in six months of two years (about 21 months of history)', () => {
    // November and December high both years; history from March 2024, so pairs from June 2025 on.
    const season = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1.5, 2]
    const t = totals('2024-03', '2025-11', 10_000, season)
    const plan = { month: '2025-12', lag: 1, firstMonth: '2024-03' }
    // December 2024: 20,000 over September to November's (10 + 10 + 15) / 3 = 11,666.67.
    expect(seasonalIndex((m) => t.get(m) ?? 0, plan)).toBeCloseTo(20_000 / (35_000 / 3), 10)
  })

  it('takes the season whole when the pattern repeats exactly', () => {
    // December doubles every year; its trailing three months (September to November) spent 10,000.
    const t = totals('2022-01', '2025-11', 10_000, december)
    const plan = { month: '2025-12', lag: 1, firstMonth: '2022-01' }
    expect(seasonalIndex((m) => t.get(m) ?? 0, plan)).toBe(2)
    // January after a doubled December: trailing mean (10 + 10 + 20) / 3 = 13,333.33, so 0.75.
    const j = totals('2022-01', '2025-12', 10_000, december)
    expect(seasonalIndex((m) => j.get(m) ?? 0, { ...plan, month: '2026-01' })).toBeCloseTo(0.75, 10)
  })

  it('is shrunk to 1 when last year’s pattern does not repeat the year before', () => {
    // Year one: only December high; year two: only June high. The ratio patterns disagree.
    const t = new Map<string, number>()
    for (let m = '2022-01'; m <= '2025-11'; m = addMonths(m, 1)) {
      const year = Number(m.slice(0, 4))
      const high = (year % 2 === 0 && m.endsWith('-12')) || (year % 2 === 1 && m.endsWith('-06'))
      t.set(m, high ? 30_000 : 10_000)
    }
    const index = seasonalIndex((m) => t.get(m) ?? 0, { month: '2025-12', lag: 1, firstMonth: '2022-01' })
    expect(index).toBe(1)
  })

  it('scales the projection and stays within half and double', () => {
    const triple = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3]
    const t = totals('2022-01', '2025-11', 10_000, triple)
    const byMonth = new Map<string, MonthSplit>([...t].map(([m, c]) => [m, { early: c / 2, late: c / 2 }]))
    // Base: 5,000 after the cut in each of the last three months; December's index 3, clamped to 2.
    expect(projectRest(byMonth, { month: '2025-12', lag: 1, firstMonth: '2022-01' })).toBe(10_000)
  })
})

describe('correlation', () => {
  it('is 1 for a straight rising line, -1 for a falling one and 0 without variation', () => {
    expect(
      correlation([
        [1, 2],
        [2, 4],
        [3, 6],
      ]),
    ).toBeCloseTo(1, 12)
    expect(
      correlation([
        [1, 3],
        [2, 2],
        [3, 1],
      ]),
    ).toBeCloseTo(-1, 12)
    expect(
      correlation([
        [1, 5],
        [2, 5],
      ]),
    ).toBe(0)
  })
})
