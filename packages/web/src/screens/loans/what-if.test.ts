import { describe, expect, it } from 'vitest'
import { EMPTY_WHAT_IF, interestToDate, monthsWords, whatIfArgs } from './what-if.ts'

describe('whatIfArgs', () => {
  it('turns typed amounts into cents and keeps a target month', () => {
    expect(
      whatIfArgs({ ...EMPTY_WHAT_IF, extraMonthly: '200', lumpSum: '1,000.50', targetMonth: '2054-12' }),
    ).toEqual({
      args: { extraMonthlyCents: '20000', oneTimeExtraCents: '100050', targetPayoffYearMonth: '2054-12' },
    })
  })

  it('asks nothing of an empty form: the current plan', () => {
    expect(whatIfArgs(EMPTY_WHAT_IF)).toEqual({ args: {} })
  })

  it('refuses an amount at or below zero, naming the field', () => {
    expect(whatIfArgs({ ...EMPTY_WHAT_IF, payment: '-5' })).toMatchObject({ field: 'payment' })
    expect(whatIfArgs({ ...EMPTY_WHAT_IF, lumpSum: 'lots' })).toMatchObject({ field: 'lumpSum' })
  })

  it('refuses a different payment with a target month, as the engine does', () => {
    expect(whatIfArgs({ ...EMPTY_WHAT_IF, payment: '1500', targetMonth: '2050-01' })).toMatchObject({
      field: 'targetMonth',
    })
  })
})

describe('interestToDate', () => {
  it('is the total less what is still to come', () => {
    // docs/loans.md: 255,085.82 over the whole table.
    expect(interestToDate({ totalInterestCents: '25508582', remainingInterestCents: '25000000' })).toBe(
      '508582',
    )
  })
})

describe('monthsWords', () => {
  it('says years and months', () => {
    expect([0, 1, 11, 12, 14, 27, -3].map(monthsWords)).toEqual([
      '0 months',
      '1 month',
      '11 months',
      '1 year',
      '1 year 2 months',
      '2 years 3 months',
      '3 months',
    ])
  })
})
