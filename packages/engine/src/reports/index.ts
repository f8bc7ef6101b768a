export { addMonths, daysInMonth, lastDayOf } from '../budgets/month.ts'
export type { AccountBalance, AccountMonthTotal, CashFlowMonth, MonthFlow, NetWorthMonth } from './model.ts'
export { balancesByMonth, cashFlowByMonth, netWorthOf } from './model.ts'
export type {
  AgeOfMoneyPoint,
  AgeOfMoneyReport,
  CashFlowPoint,
  CashFlowReport,
  NetWorthPoint,
  NetWorthReport,
} from './queries.ts'
export { MonthRangeArgsSchema, REPORT_MAX_MONTHS } from './schema.ts'
