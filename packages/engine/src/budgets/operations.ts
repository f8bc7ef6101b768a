import type { OperationTree } from '../mutator/registry.ts'

/** The budgets domain's operations (issue 11). */
export const budgetOperations = {} satisfies OperationTree
