import { describe, expect, it } from 'vitest'
import { lowBalanceDays } from './low-balance.ts'

const step = (date: string, amountCents: number, projectedBalanceCents: number, accountId = 'chk') => ({
  date,
  accountId,
  amountCents: String(amountCents),
  projectedBalanceCents: String(projectedBalanceCents),
})

describe('lowBalanceDays', () => {
  // recurrences.md's example: checking holds 100.00; −40.00 weekly from day 2, −30.00 on day 3.
  const items = [
    step('2026-11-29', -4000, 6000),
    step('2026-11-30', -3000, 3000),
    step('2026-12-06', -4000, -1000),
    step('2026-12-13', -4000, -5000),
  ]

  it('names the first day the balance ends below zero', () => {
    expect(lowBalanceDays(items, new Set(['chk']), '2026-11-27')).toEqual([
      { accountId: 'chk', date: '2026-12-06', projectedBalanceCents: '-1000' },
    ])
  })

  it('looks 14 days ahead only, and at cash accounts only', () => {
    expect(lowBalanceDays(items, new Set(['chk']), '2026-11-15')).toEqual([])
    expect(lowBalanceDays(items, new Set(['card']), '2026-11-27')).toEqual([])
  })

  it('reads a day by its last item: pay after a bill the same day keeps it above zero', () => {
    const sameDay = [step('2026-11-28', -15000, -5000), step('2026-11-28', 20000, 15000)]
    expect(lowBalanceDays(sameDay, new Set(['chk']), '2026-11-27')).toEqual([])
  })

  it('finds no crossing for an account already below zero that stays there', () => {
    const below = [step('2026-11-28', -1000, -2000), step('2026-11-29', -1000, -3000)]
    expect(lowBalanceDays(below, new Set(['chk']), '2026-11-27')).toEqual([])
  })
})
