/**
 * Loan math on exact integers: cents are bigint, the annual rate is an integer of 0.0001 percent
 * units (6.5% is 65000), and each month's interest is rounded to the cent once, half up, as
 * lenders round it. docs/loans.md works every rule through by hand.
 */

/** Units of the annual rate per percent: a rate is held as whole 0.0001% steps. */
export const RATE_UNITS_PER_PERCENT = 10_000n

/** The most payments a schedule runs to (100 years); a payment that needs more never pays off here. */
export const MAX_PAYMENTS = 1200

/** A month's interest divides the annual rate by 12 and by 100 percent. */
const MONTHLY_DIVISOR = 12n * 100n * RATE_UNITS_PER_PERCENT

/** An annual rate in percent with at most three digits before the point and four after it. */
export const RATE_PERCENT_PATTERN = /^\d{1,3}(\.\d{1,4})?$/

/** The rate text `6.5` as its exact units (65000). */
export function parseRatePercent(text: string): number {
  const [whole = '0', fraction = ''] = text.split('.')
  return Number(whole) * 10_000 + Number(fraction.padEnd(4, '0'))
}

/** Rate units as the shortest exact percent text: 65000 is `6.5`, 62500 is `6.25`. */
export function formatRatePercent(units: number): string {
  const whole = Math.floor(units / 10_000)
  const fraction = String(units % 10_000)
    .padStart(4, '0')
    .replace(/0+$/, '')
  return fraction ? `${whole}.${fraction}` : String(whole)
}

/** Divides a non-negative numerator by a positive denominator, rounding half up. */
function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator
  return (numerator % denominator) * 2n >= denominator ? quotient + 1n : quotient
}

/** One month's interest on a balance: balance × rate / 12, rounded to the cent, half up. */
export function monthlyInterest(balanceCents: bigint, rateUnits: bigint): bigint {
  return divideHalfUp(balanceCents * rateUnits, MONTHLY_DIVISOR)
}

/**
 * The level monthly payment (principal and interest) that repays `principal` in `months`
 * payments, P·r / (1 − (1 + r)^−n) computed as an exact fraction and rounded to the nearest cent
 * (half up), as numpy-financial's `pmt` is before rounding.
 */
export function levelPayment(principalCents: bigint, rateUnits: bigint, months: number): bigint {
  const n = BigInt(months)
  if (rateUnits === 0n) return divideHalfUp(principalCents, n)
  // With r = a / b: payment = P·a·(a + b)^n / (b·((a + b)^n − b^n)).
  const a = rateUnits
  const b = MONTHLY_DIVISOR
  const grown = (a + b) ** n
  return divideHalfUp(principalCents * a * grown, b * (grown - b ** n))
}

/** The `index`-th monthly date after `first` (0 is `first`), on its day or the month's last day. */
export function paymentDate(first: string, index: number): string {
  const [y, m, d] = first.split('-').map(Number) as [number, number, number]
  const months = y * 12 + (m - 1) + index
  const year = Math.floor(months / 12)
  const month = (months % 12) + 1
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate()
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(Math.min(d, last)).padStart(2, '0')}`
}

/** How many months `to` (YYYY-MM) is after `from` (YYYY-MM); negative when before. */
export function monthsAfter(from: string, to: string): number {
  const [fy, fm] = from.split('-').map(Number) as [number, number]
  const [ty, tm] = to.split('-').map(Number) as [number, number]
  return (ty - fy) * 12 + (tm - fm)
}

/** The terms a schedule runs on. */
export interface LoanSchedule {
  /** What is owed just before the first payment's month of interest. */
  principalCents: bigint
  rateUnits: bigint
  /** The monthly principal and interest; escrow comes on top. */
  paymentCents: bigint
  escrowCents: bigint
  firstPaymentDate: string
  /** The payment count at which the last payment clears whatever is left; null for open-ended. */
  termMonths: number | null
}

/** What a what-if changes, from the payment numbered `fromIndex` (0-based) on. */
export interface ScheduleChanges {
  fromIndex: number
  /** Replaces the principal-and-interest payment; the loan then runs until it is paid. */
  paymentCents?: bigint
  extraMonthlyCents?: bigint
  /** Extra principal with the payment at `fromIndex` only. */
  oneTimeExtraCents?: bigint
}

/** One payment of an amortization table. */
export interface ScheduleRow {
  number: number
  date: string
  /** Everything paid: interest, principal (extra included) and escrow. */
  paymentCents: bigint
  principalCents: bigint
  interestCents: bigint
  escrowCents: bigint
  /** The part of `principalCents` paid beyond the scheduled payment. */
  extraCents: bigint
  /** What is owed after the payment. */
  balanceCents: bigint
}

/** Raised when the payments never bring the balance to zero within `MAX_PAYMENTS`. */
export class NeverPaidOffError extends Error {
  constructor() {
    super('The payments never pay the loan off.')
  }
}

/**
 * The amortization table, payment by payment until the balance is zero. Each month owes
 * interest on the balance, rounded to the cent; the payment goes to interest first, the rest to
 * principal, and the payment that would overshoot pays exactly what is left. Under the terms'
 * own payment, payment number `termMonths` clears the balance, up or down by the cents rounding
 * left over.
 */
export function amortize(loan: LoanSchedule, changes: ScheduleChanges = { fromIndex: 0 }): ScheduleRow[] {
  const rows: ScheduleRow[] = []
  const override = changes.paymentCents
  let balance = loan.principalCents
  for (let index = 0; balance > 0n; index++) {
    if (index >= MAX_PAYMENTS) throw new NeverPaidOffError()
    const changed = index >= changes.fromIndex
    const interest = monthlyInterest(balance, loan.rateUnits)
    const payment = changed && override !== undefined ? override : loan.paymentCents
    const extra =
      (changed ? (changes.extraMonthlyCents ?? 0n) : 0n) +
      (index === changes.fromIndex ? (changes.oneTimeExtraCents ?? 0n) : 0n)
    const matures =
      loan.termMonths !== null && index === loan.termMonths - 1 && !(changed && override !== undefined)
    let principal = payment - interest + extra
    if (matures || principal > balance) principal = balance
    if (principal <= 0n) throw new NeverPaidOffError()
    const scheduled = payment - interest
    balance -= principal
    rows.push({
      number: index + 1,
      date: paymentDate(loan.firstPaymentDate, index),
      paymentCents: interest + principal + loan.escrowCents,
      principalCents: principal,
      interestCents: interest,
      escrowCents: loan.escrowCents,
      extraCents: min(extra, max(principal - max(scheduled, 0n), 0n)),
      balanceCents: balance,
    })
  }
  return rows
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b
}

/** Whether the schedule pays off, and with its last payment numbered at most `lastIndex + 1`. */
function paysOffBy(loan: LoanSchedule, changes: ScheduleChanges, lastIndex: number): boolean {
  try {
    return amortize(loan, changes).length <= lastIndex + 1
  } catch (error) {
    if (error instanceof NeverPaidOffError) return false
    throw error
  }
}

/**
 * The smallest whole-cent payment, from payment `changes.fromIndex` on, whose schedule is paid
 * off with payment number `lastIndex + 1` or before. A larger payment never leaves more owed
 * (interest rounds monotonically), so a binary search finds it exactly.
 */
export function minimumPayment(loan: LoanSchedule, changes: ScheduleChanges, lastIndex: number): bigint {
  if (lastIndex < changes.fromIndex)
    throw new RangeError('The last payment must not come before the first changed one.')
  let low = 1n
  let high = loan.principalCents + monthlyInterest(loan.principalCents, loan.rateUnits) + 1n
  while (!paysOffBy(loan, { ...changes, paymentCents: high }, lastIndex)) high *= 2n
  while (low < high) {
    const mid = (low + high) / 2n
    if (paysOffBy(loan, { ...changes, paymentCents: mid }, lastIndex)) high = mid
    else low = mid + 1n
  }
  return low
}

/** Totals of a table: what it costs and when it ends. */
export function scheduleTotals(rows: readonly ScheduleRow[]): {
  totalInterestCents: bigint
  totalPaidCents: bigint
  payoffDate: string | null
} {
  let interest = 0n
  let paid = 0n
  for (const row of rows) {
    interest += row.interestCents
    paid += row.paymentCents
  }
  return { totalInterestCents: interest, totalPaidCents: paid, payoffDate: rows.at(-1)?.date ?? null }
}
