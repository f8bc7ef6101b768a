import {
  LoanProjectionSchema,
  LoanSimulationSchema,
  LoanTermsHistorySchema,
  LoanTermsSchema,
} from '@hearth/contracts'
import { operations } from '@hearth/engine'
import { operationRoute } from '../http/operation-route.ts'

const tag = 'Accounts'
const account = '/households/{householdId}/accounts/{accountId}'
const loanOnly =
  'A non-loan account answers 422 `NOT_A_LOAN_ACCOUNT`; one without terms 409 `LOAN_TERMS_NOT_SET`.'

/** Loan accounts: their terms with a dated history, the projection and what-ifs (docs/loans.md). */
export const loanRoutes = [
  operationRoute(operations.loans.setTerms, {
    method: 'put',
    path: `${account}/loan-terms`,
    status: 200,
    tag,
    summary: "Set a loan account's terms from a date on",
    response: LoanTermsSchema,
    responseDescription: 'The terms as stored, omitted fields carried over.',
    notes:
      'One set of terms per `effectiveDate`; putting a date again replaces its terms. The first terms need ' +
      '`principalCents`, `annualRatePercent` (exact decimal text, at most 4 decimals) and `paymentCents` or ' +
      '`termMonths`; a later change carries over what it omits (see docs/loans.md). A payment that never pays ' +
      'the loan off answers 422 `LOAN_PAYMENT_TOO_LOW` with `minimumPaymentCents`; a non-loan account 422 ' +
      '`NOT_A_LOAN_ACCOUNT`.',
    errors: { 400: ['INVALID_LOAN_TERMS'], 422: ['NOT_A_LOAN_ACCOUNT', 'LOAN_PAYMENT_TOO_LOW'] },
  }),
  operationRoute(operations.loans.deleteTerms, {
    method: 'delete',
    path: `${account}/loan-terms/{effectiveDate}`,
    status: 204,
    tag,
    summary: 'Remove the terms of one effective date',
    params: { accountId: 'id', effectiveDate: 'effectiveDate' },
    notes:
      'Takes back a mistaken change: the terms before it are in force again from its date; later changes keep ' +
      'what they were written with. A date without terms answers 404 `NOT_FOUND`; a non-loan account 422 ' +
      '`NOT_A_LOAN_ACCOUNT`.',
    errors: { 422: ['NOT_A_LOAN_ACCOUNT'] },
  }),
  operationRoute(operations.loans.termsHistory, {
    method: 'get',
    path: `${account}/loan-terms-history`,
    status: 200,
    tag,
    summary: 'Dated changes of the loan terms',
    response: LoanTermsHistorySchema,
    responseDescription: 'The terms, newest effective date first.',
    notes:
      'Every change of rate, payment, escrow or balance, newest first. A non-loan account answers 422 `NOT_A_LOAN_ACCOUNT`.',
    errors: { 422: ['NOT_A_LOAN_ACCOUNT'] },
  }),
  operationRoute(operations.loans.projection, {
    method: 'get',
    path: `${account}/loan-projection`,
    status: 200,
    tag,
    summary: 'Amortization with the current terms',
    response: LoanProjectionSchema,
    responseDescription: 'The amortization table, payoff month, totals and this month’s split.',
    notes:
      'The terms in force on your local day; interest is rounded to the cent each month (half up) and the last ' +
      'payment clears the balance exactly. `extraMonthlyCents` adds principal to every payment from this month ' +
      `on. ${loanOnly}`,
    errors: { 409: ['LOAN_TERMS_NOT_SET'], 422: ['NOT_A_LOAN_ACCOUNT'] },
  }),
  operationRoute(operations.loans.simulation, {
    method: 'get',
    path: `${account}/loan-simulation`,
    status: 200,
    tag,
    summary: 'What-if projection of a loan',
    response: LoanSimulationSchema,
    responseDescription: 'The what-if table and totals, and the difference from the current plan.',
    notes:
      '`targetPayoffYearMonth` solves the least whole-cent monthly payment that pays off by then (a month before ' +
      'this one answers 400 `LOAN_TARGET_IN_PAST`; not with `paymentCents`: 400 `LOAN_SIMULATION_CONFLICT`). ' +
      '`paymentCents` replaces the monthly principal and interest from this month on; one that never pays ' +
      'the loan off answers 422 `LOAN_PAYMENT_TOO_LOW` with `minimumPaymentCents`. `oneTimeExtraCents` adds ' +
      `principal to this month's payment, \`extraMonthlyCents\` to every payment from this month on. ${loanOnly}`,
    errors: {
      400: ['LOAN_TARGET_IN_PAST', 'LOAN_SIMULATION_CONFLICT'],
      409: ['LOAN_TERMS_NOT_SET', 'LOAN_PAID_OFF'],
      422: ['NOT_A_LOAN_ACCOUNT', 'LOAN_PAYMENT_TOO_LOW'],
    },
  }),
]
