import { conflict, invalid } from '../errors.ts'
import { defineQuery } from '../mutator/define.ts'
import { minimumPayment, monthsAfter, type ScheduleChanges } from './amortization.ts'
import { loanTermsHistory, requireLoanAccount } from './lookups.ts'
import { type LoanTerms, toLoanTerms } from './model.ts'
import {
  type LoanBasis,
  type LoanMonthSplit,
  type LoanPlan,
  loanBasis,
  planOf,
  thisMonthSplit,
} from './plan.ts'
import { LoanAccountArgsSchema, LoanProjectionArgsSchema, LoanSimulationArgsSchema } from './schema.ts'
import { assertPaysOff } from './terms-change.ts'

/** A loan account's terms, each from its effective date on, newest first. */
export const loanTermsHistoryQuery = defineQuery({
  audience: 'device',
  description: "A loan account's terms, each from its effective date on, newest first.",
  scope: 'read:accounts',
  args: LoanAccountArgsSchema,
  async run(db, args, ctx): Promise<{ accountId: string; items: LoanTerms[] }> {
    const account = await requireLoanAccount(db, ctx.householdId, args.id)
    const rows = await loanTermsHistory(db, ctx.householdId, account.id)
    return { accountId: account.id, items: rows.map(toLoanTerms) }
  },
})

/** A loan's projection: its table under the terms in force, what it costs, and this month's split. */
export interface LoanProjection extends LoanPlan {
  accountId: string
  asOf: string
  terms: LoanTerms
  extraMonthlyCents: string
  thisMonth: LoanMonthSplit
}

/** The amortization of a loan account under the terms in force, with this month's ledger payment split. */
export const loanProjection = defineQuery({
  audience: 'device',
  description:
    "The amortization of a loan account under the terms in force, with this month's ledger payment split.",
  scope: 'read:accounts',
  args: LoanProjectionArgsSchema,
  async run(db, args, ctx): Promise<LoanProjection> {
    const basis = await loanBasis(db, ctx, args.id)
    const changes: ScheduleChanges = {
      fromIndex: basis.fromIndex,
      extraMonthlyCents: BigInt(args.extraMonthlyCents ?? 0),
    }
    const { rows, plan } = planOf(basis, changes)
    return {
      accountId: basis.accountId,
      asOf: basis.today,
      terms: basis.terms,
      extraMonthlyCents: String(changes.extraMonthlyCents),
      ...plan,
      thisMonth: await thisMonthSplit(db, ctx, basis, rows),
    }
  },
})

/** A what-if against the current plan: the same table and totals, and what it changes. */
export interface LoanSimulation extends LoanProjection {
  oneTimeExtraCents: string
  targetPayoffYearMonth: string | null
  comparison: {
    basePaymentCents: string
    basePayoffYearMonth: string
    baseTotalInterestCents: string
    monthsSaved: number
    interestSavedCents: string
  }
}

/** A what-if for a loan account: a target payoff month, extra principal or another payment, against the current plan. */
export const loanSimulation = defineQuery({
  audience: 'device',
  description:
    'A what-if for a loan account: a target payoff month, extra principal or another payment, against the current plan.',
  scope: 'read:accounts',
  args: LoanSimulationArgsSchema,
  async run(db, args, ctx): Promise<LoanSimulation> {
    const basis = await loanBasis(db, ctx, args.id)
    const base = planOf(basis, { fromIndex: basis.fromIndex })
    const changes: ScheduleChanges = {
      fromIndex: basis.fromIndex,
      extraMonthlyCents: BigInt(args.extraMonthlyCents ?? 0),
      oneTimeExtraCents: BigInt(args.oneTimeExtraCents ?? 0),
    }
    if (args.paymentCents !== undefined) changes.paymentCents = BigInt(args.paymentCents)
    if (args.targetPayoffYearMonth !== undefined) {
      changes.paymentCents = solveTarget(basis, base.rows.length, changes, args.targetPayoffYearMonth, args)
    }
    assertPaysOff(basis.schedule, changes, 'paymentCents')
    const { rows, plan } = planOf(basis, changes)
    return {
      accountId: basis.accountId,
      asOf: basis.today,
      terms: basis.terms,
      extraMonthlyCents: String(changes.extraMonthlyCents),
      oneTimeExtraCents: String(changes.oneTimeExtraCents),
      targetPayoffYearMonth: args.targetPayoffYearMonth ?? null,
      ...plan,
      thisMonth: await thisMonthSplit(db, ctx, basis, rows),
      comparison: {
        basePaymentCents: base.plan.paymentCents,
        basePayoffYearMonth: base.plan.payoffYearMonth,
        baseTotalInterestCents: base.plan.totalInterestCents,
        monthsSaved: base.plan.paymentCount - plan.paymentCount,
        interestSavedCents: String(BigInt(base.plan.totalInterestCents) - BigInt(plan.totalInterestCents)),
      },
    }
  },
})

/** The least monthly payment, from this month's on, that pays the loan off by `target` (YYYY-MM). */
function solveTarget(
  basis: LoanBasis,
  basePayments: number,
  changes: ScheduleChanges,
  target: string,
  args: { paymentCents?: number },
): bigint {
  const field = 'targetPayoffYearMonth'
  if (args.paymentCents !== undefined) {
    throw invalid('LOAN_SIMULATION_CONFLICT', 'Give paymentCents or targetPayoffYearMonth, not both.', [
      { path: field, message: 'Not with paymentCents: the target decides the payment.' },
    ])
  }
  if (target < basis.today.slice(0, 7)) {
    throw invalid('LOAN_TARGET_IN_PAST', `targetPayoffYearMonth ${target} is in the past.`, [
      { path: field, message: `Must be ${basis.today.slice(0, 7)} or later.` },
    ])
  }
  const lastIndex = monthsAfter(basis.schedule.firstPaymentDate.slice(0, 7), target)
  if (lastIndex < basis.fromIndex) {
    throw invalid('LOAN_TARGET_IN_PAST', `The loan's next payment is after ${target}.`, [
      { path: field, message: `Must be ${basis.schedule.firstPaymentDate.slice(0, 7)} or later.` },
    ])
  }
  if (basePayments <= basis.fromIndex) {
    throw conflict('LOAN_PAID_OFF', 'The loan is paid off under its terms; there is nothing left to pay.')
  }
  return minimumPayment(basis.schedule, changes, lastIndex)
}
