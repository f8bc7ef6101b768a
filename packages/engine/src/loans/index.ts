export { amortize, type LoanSchedule, levelPayment, type ScheduleRow } from './amortization.ts'
export type * from './model.ts'
export type { LoanMonthSplit, LoanPlan } from './plan.ts'
export type { LoanProjection, LoanSimulation } from './queries.ts'
export {
  type DeleteLoanTermsArgs,
  DeleteLoanTermsArgsSchema,
  type LoanAccountArgs,
  LoanAccountArgsSchema,
  type LoanProjectionArgs,
  LoanProjectionArgsSchema,
  type LoanSimulationArgs,
  LoanSimulationArgsSchema,
  type SetLoanTermsArgs,
  SetLoanTermsArgsSchema,
} from './schema.ts'
export type * from './tables.ts'
