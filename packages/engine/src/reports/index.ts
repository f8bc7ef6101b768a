export { addMonths, lastDayOf } from '../budgets/month.ts'
export type { AccountMovement, CashFlowMonth, MonthFlow, NetWorthMonth } from './model.ts'
export { cashFlowByMonth, netWorthByMonth } from './model.ts'
export type {
  AgeOfMoneyPoint,
  AgeOfMoneyReport,
  CashFlowPoint,
  CashFlowReport,
  NetWorthPoint,
  NetWorthReport,
} from './queries.ts'
export { MonthRangeArgsSchema, REPORT_MAX_MONTHS } from './schema.ts'
