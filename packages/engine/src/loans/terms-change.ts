import { EngineError, type FieldError, invalid } from '../errors.ts'
import {
  amortize,
  type LoanSchedule,
  levelPayment,
  MAX_PAYMENTS,
  minimumPayment,
  monthsAfter,
  NeverPaidOffError,
  parseRatePercent,
  paymentDate,
  type ScheduleChanges,
} from './amortization.ts'
import type { SetLoanTermsArgs } from './schema.ts'

/** The index of the first payment of `loan` dated on or after `date`. */
export function paymentIndexFrom(loan: LoanSchedule, date: string): number {
  const k = Math.max(0, monthsAfter(loan.firstPaymentDate.slice(0, 7), date.slice(0, 7)))
  return paymentDate(loan.firstPaymentDate, k) < date ? k + 1 : k
}

/**
 * The full terms a change sets, from its fields and the terms in force before it. A first set of
 * terms needs the principal, the rate, and a payment or a term; a change carries the rest over:
 * the rate, escrow and payment as they were, the next payment date on or after the effective
 * date, the balance the earlier schedule reaches just before it, and what is left of the term.
 * A new rate, principal or term with no payment re-amortizes over the term that is left.
 */
export function draftTerms(args: SetLoanTermsArgs, previous: LoanSchedule | null): LoanSchedule {
  const problems: FieldError[] = []
  const firstPaymentDate =
    args.firstPaymentDate ??
    (previous
      ? paymentDate(previous.firstPaymentDate, paymentIndexFrom(previous, args.effectiveDate))
      : paymentDate(args.effectiveDate, 1))
  if (firstPaymentDate < args.effectiveDate) {
    problems.push({ path: 'firstPaymentDate', message: 'Must not be before effectiveDate.' })
  }
  const k = previous ? paymentIndexFrom(previous, firstPaymentDate) : 0
  let principal = args.principalCents !== undefined ? BigInt(args.principalCents) : undefined
  if (principal === undefined && previous) {
    const rows = k === 0 ? [] : amortize(previous).slice(0, k)
    principal = rows.length === 0 ? previous.principalCents : rows.at(-1)!.balanceCents
    if (principal === 0n) {
      problems.push({
        path: 'principalCents',
        message: 'The earlier terms are paid off by then; give the balance.',
      })
    }
  }
  if (principal === undefined)
    problems.push({ path: 'principalCents', message: 'Required for a loan’s first terms.' })
  const rateUnits =
    args.annualRatePercent !== undefined
      ? BigInt(parseRatePercent(args.annualRatePercent))
      : previous?.rateUnits
  if (rateUnits === undefined) {
    problems.push({ path: 'annualRatePercent', message: 'Required for a loan’s first terms.' })
  }
  const termMonths = args.termMonths ?? (previous?.termMonths ? Math.max(1, previous.termMonths - k) : null)
  const reamortize =
    args.principalCents !== undefined || args.annualRatePercent !== undefined || args.termMonths !== undefined
  let payment = args.paymentCents !== undefined ? BigInt(args.paymentCents) : undefined
  if (payment === undefined && principal !== undefined && rateUnits !== undefined) {
    if (termMonths !== null && (reamortize || !previous))
      payment = levelPayment(principal, rateUnits, termMonths)
    else payment = previous?.paymentCents
  }
  if (
    payment === undefined &&
    !problems.some((p) => p.path === 'principalCents' || p.path === 'annualRatePercent')
  ) {
    problems.push({ path: 'paymentCents', message: 'Give paymentCents or termMonths.' })
  }
  if (problems.length > 0 || principal === undefined || rateUnits === undefined || payment === undefined) {
    throw invalid('INVALID_LOAN_TERMS', 'The loan terms are incomplete or inconsistent.', problems)
  }
  const terms: LoanSchedule = {
    principalCents: principal,
    rateUnits,
    paymentCents: payment,
    escrowCents: args.escrowCents !== undefined ? BigInt(args.escrowCents) : (previous?.escrowCents ?? 0n),
    firstPaymentDate,
    termMonths,
  }
  assertPaysOff(terms, { fromIndex: 0 }, 'paymentCents')
  return terms
}

/**
 * 422 LOAN_PAYMENT_TOO_LOW when the schedule never reaches zero within MAX_PAYMENTS payments
 * (a payment at or below a month's interest never does), naming the least payment that would.
 */
export function assertPaysOff(loan: LoanSchedule, changes: ScheduleChanges, path: string): void {
  try {
    amortize(loan, changes)
  } catch (error) {
    if (!(error instanceof NeverPaidOffError)) throw error
    const { paymentCents: _, ...rest } = changes
    const least = minimumPayment(loan, rest, MAX_PAYMENTS - 1)
    throw new EngineError(
      422,
      'LOAN_PAYMENT_TOO_LOW',
      `A monthly payment of ${changes.paymentCents ?? loan.paymentCents} cents never pays this loan off; the least that does (within ${MAX_PAYMENTS} payments) is ${least} cents.`,
      {
        errors: [{ path, message: `At least ${least} cents.` }],
        extra: { minimumPaymentCents: String(least) },
      },
    )
  }
}
