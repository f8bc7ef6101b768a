import { describe, expect, it } from 'vitest'
import { ageOfMoney, type CashFlow, roundHalfUp } from './age-of-money.ts'

function flow(date: string, amount: number, id?: string): CashFlow {
  return { date, amountCents: BigInt(amount), ...(id && { id }) }
}

function spend(date: string, amount: number, times: number): CashFlow[] {
  return Array.from({ length: times }, () => flow(date, -amount))
}

describe('age of money', () => {
  it('is null until ten outflows exist', () => {
    expect(ageOfMoney([flow('2026-01-01', 100_000), ...spend('2026-01-05', 1_000, 9)])).toBeNull()
    expect(ageOfMoney([flow('2026-01-01', 100_000), ...spend('2026-01-05', 1_000, 10)])?.days).toBe(4)
  })

  it('averages ten purchases paid from a starting balance: ten days after it, ten days old', () => {
    const aom = ageOfMoney([flow('2026-01-01', 100_000), ...spend('2026-01-11', 1_000, 10)])
    expect(aom?.days).toBe(10)
    expect(aom?.numerator).toBe(10n)
    expect(aom?.denominator).toBe(1n)
  })

  it('weights an outflow spanning two buckets by the cents it takes from each', () => {
    // $300 on Jan 1 and $300 on Jan 15. Nine $20 purchases on Jan 10 (9 days old each) leave
    // $120 in the first bucket; $200 on Jan 20 takes it (19 days) and $80 of the second (5 days):
    // (12000 * 19 + 8000 * 5) / 20000 = 13.4 days. The mean is (9 * 9 + 13.4) / 10 = 9.44: 9 days.
    const aom = ageOfMoney([
      flow('2026-01-01', 30_000),
      flow('2026-01-15', 30_000),
      ...spend('2026-01-10', 2_000, 9),
      flow('2026-01-20', -20_000, 'rent'),
    ])
    expect(aom?.days).toBe(9)
    expect(aom?.numerator).toBe(236n)
    expect(aom?.denominator).toBe(25n)
    const rent = aom?.outflows.at(-1)
    expect(rent?.id).toBe('rent')
    expect(Number(rent?.ageNumerator) / Number(rent?.ageDenominator)).toBeCloseTo(13.4, 10)
  })

  it('scores only the last ten outflows, though older ones still drain the buckets', () => {
    // A $50 purchase on Jan 2 empties the Jan 1 bucket; the ten later ones spend the Feb 1 pay.
    const aom = ageOfMoney([
      flow('2026-01-01', 5_000),
      flow('2026-01-02', -5_000),
      flow('2026-02-01', 100_000),
      ...spend('2026-02-04', 1_000, 10),
    ])
    expect(aom?.days).toBe(3)
    expect(aom?.outflows).toHaveLength(10)
  })

  it('rounds the mean to the nearest day, halves up', () => {
    const aom = ageOfMoney([
      flow('2026-03-01', 5_000),
      flow('2026-03-02', 5_000),
      ...spend('2026-03-03', 1_000, 10),
    ])
    // Five outflows from the Mar 1 bucket (2 days), five from the Mar 2 bucket (1 day): 1.5 days.
    expect(aom?.numerator).toBe(3n)
    expect(aom?.denominator).toBe(2n)
    expect(aom?.days).toBe(2)
    expect(roundHalfUp(149n, 100n)).toBe(1)
    expect(roundHalfUp(0n, 7n)).toBe(0)
  })

  it('counts money spent below zero as zero days old, and pay that day as covering it first', () => {
    const aom = ageOfMoney([
      ...spend('2026-01-10', 1_000, 5),
      flow('2026-01-10', 5_000),
      flow('2026-01-01', 2_000),
      ...spend('2026-01-11', 1_000, 5),
    ])
    // Same-day pay comes first: the Jan 1 bucket (9 days) pays two purchases, the Jan 10 pay
    // three (0 days) and two of the next day's (1 day); three more find no money: 0 days.
    expect(aom?.outflows.map((o) => Number(o.ageNumerator / o.ageDenominator))).toEqual([
      9, 9, 0, 0, 0, 1, 1, 0, 0, 0,
    ])
    expect(aom?.numerator).toBe(2n)
    expect(aom?.days).toBe(2)
  })

  it('ignores flows of zero cents', () => {
    expect(ageOfMoney([flow('2026-01-01', 10_000), ...spend('2026-01-02', 0, 10)])).toBeNull()
  })
})
