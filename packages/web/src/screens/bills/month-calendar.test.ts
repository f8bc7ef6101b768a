import { describe, expect, it } from 'vitest'
import { byDate, monthWeeks } from './month-calendar.ts'

describe('monthWeeks', () => {
  it('starts November 2026 on a Sunday, the last cell of its first week', () => {
    const weeks = monthWeeks('2026-11')
    expect(weeks[0]).toEqual([null, null, null, null, null, null, '2026-11-01'])
    expect(weeks.at(-1)).toEqual(['2026-11-30', null, null, null, null, null, null])
    expect(weeks).toHaveLength(6)
  })

  it('fills February 2027 in four whole weeks when it starts on a Monday', () => {
    expect(monthWeeks('2027-02').map((w) => w.filter(Boolean).length)).toEqual([7, 7, 7, 7])
  })

  it('gives a leap February its 29th', () => {
    expect(monthWeeks('2028-02').flat().filter(Boolean).at(-1)).toBe('2028-02-29')
  })
})

describe('byDate', () => {
  it('keeps each day’s items in the order given', () => {
    const days = byDate([
      { date: '2026-12-01', n: 1 },
      { date: '2026-12-03', n: 2 },
      { date: '2026-12-01', n: 3 },
    ])
    expect([...days.entries()].map(([d, items]) => [d, items.map((i) => i.n)])).toEqual([
      ['2026-12-01', [1, 3]],
      ['2026-12-03', [2]],
    ])
  })
})
