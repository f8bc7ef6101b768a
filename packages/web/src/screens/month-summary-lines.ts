/** The month's figures the "This month" panel reads (a `budgets.get` answer). */
export interface MonthFigures {
  readyToAssignCarriedInCents: string
  incomeCents: string
  uncategorizedCents: string
  overspendingLastMonthCents: string
  assignedCents: string
  assignedInFutureCents: string
  readyToAssignCents: string
}

/** One line of the panel: an amount of money as it is, and whether it adds to or takes from Ready to Assign. */
export interface SummaryLine {
  label: string
  /** `plus` adds to Ready to Assign, `minus` takes from it; the carried-in line starts the sum. */
  op: 'start' | 'plus' | 'minus'
  cents: bigint
}

/**
 * The panel's one sign rule: every line shows its money as it is (money assigned is a positive
 * amount, overspending too), and its `op` says whether it adds to Ready to Assign or takes from
 * it; the lines always add up to Ready to Assign (docs/budgets.md, Ready to Assign).
 */
export function monthSummaryLines(m: MonthFigures): SummaryLine[] {
  return [
    { label: 'Carried in', op: 'start', cents: BigInt(m.readyToAssignCarriedInCents) },
    { label: 'Income this month', op: 'plus', cents: BigInt(m.incomeCents) },
    { label: 'Uncategorized money', op: 'plus', cents: BigInt(m.uncategorizedCents) },
    // The API gives overspending as 0 or negative (its one sign rule); here it is money taken.
    { label: 'Overspending last month', op: 'minus', cents: -BigInt(m.overspendingLastMonthCents) },
    { label: 'Assigned this month', op: 'minus', cents: BigInt(m.assignedCents) },
    { label: 'Assigned in future months', op: 'minus', cents: BigInt(m.assignedInFutureCents) },
  ]
}

/** What the lines add up to: Ready to Assign. */
export function sumOfLines(lines: readonly SummaryLine[]): bigint {
  return lines.reduce((sum, l) => (l.op === 'minus' ? sum - l.cents : sum + l.cents), 0n)
}
