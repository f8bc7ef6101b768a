import {
  AgeOfMoneyReportSchema,
  CashFlowReportSchema,
  NetWorthReportSchema,
  SpendingReportSchema,
} from '@hearth/contracts'
import { operations } from '@hearth/engine'
import { type OperationRoute, operationRoute } from '../http/operation-route.ts'

const reports = '/households/{householdId}/reports'
const tag = 'Reports'
const months =
  'Query `fromMonth` and `toMonth` (YYYY-MM, both optional): default the twelve months ending with your local ' +
  'month, or starting at `fromMonth`; at most 240 months (400 `WINDOW_TOO_LARGE`), `fromMonth` after `toMonth` ' +
  'answers 400 `INVALID_DATE_RANGE`.'
const monthErrors = { 400: ['INVALID_DATE_RANGE', 'WINDOW_TOO_LARGE'] } as const

/** Reports for charts: net worth, cash flow, spending and age of money. See docs/api/reports.md. */
export const reportRoutes: OperationRoute[] = [
  operationRoute(operations.reports.netWorth, {
    method: 'get',
    path: `${reports}/net-worth`,
    status: 200,
    tag,
    summary: 'Net worth at the end of each month',
    response: NetWorthReportSchema,
    responseDescription: 'The report.',
    notes: `${months} Every live account counts (open or closed, on or off budget) with its balance on the month's last day, converted to the base currency at the household's rate and rounded half away from zero per account; above zero it is an asset, below zero a liability.`,
    errors: monthErrors,
  }),
  operationRoute(operations.reports.cashFlow, {
    method: 'get',
    path: `${reports}/cash-flow`,
    status: 200,
    tag,
    summary: 'Income against spending per month',
    response: CashFlowReportSchema,
    responseDescription: 'The report.',
    notes: `${months} On-budget accounts (cash and credit); split rows count by their parts; transfers between your own accounts and system rows (opening balances, adjustments) are left out. Converted to the base currency per month and currency.`,
    errors: monthErrors,
  }),
  operationRoute(operations.reports.spending, {
    method: 'get',
    path: `${reports}/spending`,
    status: 200,
    tag,
    summary: 'Spending by category, payee or tag over a date range',
    response: SpendingReportSchema,
    responseDescription: 'The report.',
    notes:
      'Query `fromDate`, `toDate` (YYYY-MM-DD, required, both included), `groupBy` (`category` default, `payee`, ' +
      '`tag`, `none`), and optionally `categoryId`, `payeeId`, `tagId`, `accountId` to narrow. On-budget accounts; split rows by ' +
      'their parts; transfers and system rows left out; converted to the base currency. `toDate` before `fromDate` ' +
      'answers 400 `VALIDATION_FAILED`.',
  }),
  operationRoute(operations.reports.ageOfMoney, {
    method: 'get',
    path: `${reports}/age-of-money`,
    status: 200,
    tag,
    summary: 'The age of money at the end of each month',
    response: AgeOfMoneyReportSchema,
    responseDescription: 'The report.',
    notes: `${months} Each month's figure is what GET /budgets/age-of-money answers with \`asOf\` the month's last day (your local today in your current month).`,
    errors: monthErrors,
  }),
]
