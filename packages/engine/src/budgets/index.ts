export type { AutoAssigned, AutoAssignResult } from './auto-assign.ts'
export type { CategoryDeletion } from './delete-category.ts'
export { activityQuery, loadBudget } from './flows.ts'
export {
  type BudgetCategory,
  type BudgetFlows,
  budgetMonth,
  type CategoryKind,
  type MonthBudget,
} from './model.ts'
export { MonthSchema } from './month.ts'
export type { BudgetCell } from './mutators.ts'
export type { BudgetCategoryMonth, BudgetHistoryEntry } from './queries.ts'
export * from './schema.ts'
export type * from './snapshot.ts'
export type * from './tables.ts'
