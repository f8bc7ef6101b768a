import { describe, expect, it } from 'vitest'
import { monthSummaryLines, sumOfLines } from './month-summary-lines.ts'

// docs/budgets.md's example: income 3,000.00 in January, 1,700.00 assigned, 200.00 in February.
const january = {
  readyToAssignCarriedInCents: '0',
  incomeCents: '300000',
  uncategorizedCents: '0',
  overspendingLastMonthCents: '0',
  assignedCents: '170000',
  assignedInFutureCents: '20000',
  readyToAssignCents: '110000',
}

describe('monthSummaryLines', () => {
  it('shows assigned money as a positive amount taken from Ready to Assign', () => {
    const assigned = monthSummaryLines(january).find((l) => l.label === 'Assigned this month')
    expect(assigned).toEqual({ label: 'Assigned this month', op: 'minus', cents: 170000n })
  })

  it('adds up to Ready to Assign: 0 + 3,000.00 + 0 − 0 − 1,700.00 − 200.00 = 1,100.00', () => {
    expect(sumOfLines(monthSummaryLines(january))).toBe(BigInt(january.readyToAssignCents))
  })

  it('shows last month’s overspending (negative in the API) as money taken', () => {
    const lines = monthSummaryLines({
      ...january,
      overspendingLastMonthCents: '-2500',
      readyToAssignCents: '107500',
    })
    expect(lines.find((l) => l.label === 'Overspending last month')?.cents).toBe(2500n)
    expect(sumOfLines(lines)).toBe(107500n)
  })

  it('keeps an uncategorized outflow negative: it is money in that went out', () => {
    const lines = monthSummaryLines({ ...january, uncategorizedCents: '-1000', readyToAssignCents: '109000' })
    expect(sumOfLines(lines)).toBe(109000n)
  })
})
