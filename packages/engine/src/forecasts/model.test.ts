import { describe, expect, it } from 'vitest'
import { type MonthSplit, projectRest } from './model.ts'

const months = (entries: [string, number][]) =>
  new Map<string, MonthSplit>(entries.map(([m, late]) => [m, { early: 0, late }]))

describe('projecting the variable rest of a month', () => {
  it('averages what the trailing three months spent after the cut day', () => {
    const byMonth = months([
      ['2025-03', 3_000],
      ['2025-04', 6_000],
      ['2025-05', 9_000],
    ])
    expect(projectRest(byMonth, ['2025-05', '2025-04', '2025-03'], null)).toBe(6_000)
    expect(projectRest(byMonth, ['2025-05', '2025-04', '2025-02'], null)).toBe(5_000)
  })

  it('scales by last year’s season, clamped to half or double', () => {
    const trailing = ['2025-11', '2025-10', '2025-09']
    const lastYear = { month: '2024-12', before: ['2024-11', '2024-10', '2024-09'] }
    const base: [string, number][] = [
      ['2025-11', 10_000],
      ['2025-10', 10_000],
      ['2025-09', 10_000],
      ['2024-11', 8_000],
      ['2024-10', 8_000],
      ['2024-09', 8_000],
    ]
    expect(projectRest(months([...base, ['2024-12', 12_000]]), trailing, lastYear)).toBe(15_000)
    expect(projectRest(months([...base, ['2024-12', 80_000]]), trailing, lastYear)).toBe(20_000)
    expect(projectRest(months(base), trailing, lastYear)).toBe(10_000)
  })

  it('projects nothing for a category that spent nothing or took refunds', () => {
    expect(projectRest(months([['2025-05', -500]]), ['2025-05'], null)).toBe(0)
    expect(projectRest(new Map(), ['2025-05'], null)).toBe(0)
  })
})
