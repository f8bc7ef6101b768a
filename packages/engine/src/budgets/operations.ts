import type { OperationTree } from '../mutator/registry.ts'
import { getAgeOfMoney } from './age-of-money-query.ts'
import { autoAssignFromGoals } from './auto-assign.ts'
import { deleteCategoryWithMoney } from './delete-category.ts'
import { assignBudget, copyBudgetFrom, moveBudget, resetBudget } from './mutators.ts'
import { getBudgetCategory, getBudgetHistory, getBudgetMonth } from './queries.ts'

/** The budgets domain's operations (issue 11). */
export const budgetOperations = {
  budgets: {
    ageOfMoney: getAgeOfMoney,
    assign: assignBudget,
    autoAssignFromGoals: autoAssignFromGoals,
    copyFrom: copyBudgetFrom,
    deleteCategory: deleteCategoryWithMoney,
    get: getBudgetMonth,
    getCategory: getBudgetCategory,
    history: getBudgetHistory,
    move: moveBudget,
    reset: resetBudget,
  },
} satisfies OperationTree
