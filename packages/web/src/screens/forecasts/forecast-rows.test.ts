import { describe, expect, it } from 'vitest'
import { forecastRows } from './forecast-rows.ts'

const parts = (categoryId: string | null, actual: number, scheduled: number, projected: number) => ({
  categoryId,
  actualCents: String(actual),
  scheduledCents: String(scheduled),
  projectedCents: String(projected),
  totalCents: String(actual + scheduled + projected),
})

describe('forecastRows', () => {
  const budget = [
    { id: 'rent', name: 'Rent', kind: 'spending', assignedCents: '150000' },
    { id: 'food', name: 'Food', kind: 'spending', assignedCents: '40000' },
    { id: 'fun', name: 'Fun', kind: 'spending', assignedCents: '0' },
    { id: 'pay', name: 'Salary', kind: 'income', assignedCents: '0' },
  ]

  it('sets each forecast beside what the month assigned, in the budget’s order', () => {
    // issue 39's rent: scheduled 1,500.00 on the 30th; food 250.00 so far and 180.00 projected.
    const rows = forecastRows(
      [parts('food', 25000, 0, 18000), parts('rent', 0, 150000, 0)],
      budget,
      new Map(),
    )
    expect(rows.map((r) => [r.name, r.totalCents, r.assignedCents, r.leftCents])).toEqual([
      ['Rent', '150000', '150000', '0'],
      ['Food', '43000', '40000', '-3000'],
    ])
  })

  it('lists a budgeted category with nothing forecast, and leaves out income and empty ones', () => {
    const rows = forecastRows([], budget, new Map())
    expect(rows.map((r) => [r.name, r.totalCents, r.leftCents])).toEqual([
      ['Rent', '0', '150000'],
      ['Food', '0', '40000'],
    ])
  })

  it('names a category the budget does not list, and puts uncategorized spending last', () => {
    const rows = forecastRows(
      [parts(null, 500, 0, 0), parts('gone', 1200, 0, 0)],
      [],
      new Map([['gone', 'Gym (deleted)']]),
    )
    expect(rows.map((r) => [r.categoryId, r.name, r.leftCents])).toEqual([
      ['gone', 'Gym (deleted)', '-1200'],
      [null, 'Uncategorized', '-500'],
    ])
  })
})
