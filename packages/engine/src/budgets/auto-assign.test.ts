import { describe, expect, it } from 'vitest'
import { type GoalClaim, planAutoAssign } from './auto-assign.ts'

const claim = (categoryId: string, extra: Partial<GoalClaim>): GoalClaim => ({
  categoryId,
  overspent: false,
  dueDate: null,
  order: 0,
  underfunded: 0n,
  assigned: 0n,
  ...extra,
})

describe('planAutoAssign', () => {
  it('serves overspent categories first, then the soonest due date, then display order, until nothing is left', () => {
    const plan = planAutoAssign(
      [
        claim('rent', { dueDate: '2024-05-31', underfunded: 100_000n, order: 0 }),
        claim('car', { dueDate: '2024-12-31', underfunded: 20_000n, assigned: 5_000n, order: 1 }),
        claim('fun', { overspent: true, underfunded: 3_000n, order: 2 }),
        claim('gifts', { dueDate: null, underfunded: 10_000n, order: 3 }),
      ],
      110_000n,
    )
    // fun 3,000 first; rent 100,000; car gets the last 7,000 on top of its 5,000; gifts nothing.
    expect([...plan]).toEqual([
      ['fun', 3_000n],
      ['rent', 100_000n],
      ['car', 12_000n],
    ])
  })

  it('assigns nothing when Ready to Assign is zero or negative', () => {
    expect(planAutoAssign([claim('rent', { underfunded: 100n })], 0n).size).toBe(0)
    expect(planAutoAssign([claim('rent', { underfunded: 100n })], -5n).size).toBe(0)
  })
})
