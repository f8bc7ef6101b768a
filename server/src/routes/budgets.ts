import {
  BudgetAutoAssignSchema,
  BudgetCategoryDeletionSchema,
  BudgetCategoryMonthSchema,
  BudgetCellSchema,
  BudgetHistorySchema,
  BudgetMonthChangeSchema,
  BudgetMonthSchema,
  BudgetMoveSchema,
} from '@hearth/contracts'
import { operations } from '@hearth/engine'
import { type OperationRoute, operationRoute } from '../http/operation-route.ts'

const tag = 'Budgets'
const month = '/households/{householdId}/budgets/{yearMonth}'
const category = `${month}/categories/{categoryId}`
const monthParams = { yearMonth: 'month' }
const categoryParams = { yearMonth: 'month', categoryId: 'categoryId' }
const historyNote =
  '`historyId` (a ULID) names the history entry the change writes; the server makes one when it is left out.'

/** The envelope budget: month snapshots, assignments, moves, copies and resets. See docs/budgets.md. */
export const budgetRoutes: OperationRoute[] = [
  operationRoute(operations.budgets.get, {
    method: 'get',
    path: month,
    status: 200,
    tag,
    params: monthParams,
    response: BudgetMonthSchema,
    responseDescription: 'The month snapshot.',
    notes:
      'Ready to Assign, then every group and category with carried in, assigned, activity, available, cash and credit overspending and state. Only cash and credit accounts in the base currency count; a transfer between two of them never does.',
  }),
  operationRoute(operations.budgets.getCategory, {
    method: 'get',
    path: category,
    status: 200,
    tag,
    params: categoryParams,
    response: BudgetCategoryMonthSchema,
    responseDescription: 'The category in that month.',
    notes: "A credit card's payment category has the card account's id.",
  }),
  operationRoute(operations.budgets.assign, {
    method: 'patch',
    path: category,
    status: 200,
    tag,
    params: categoryParams,
    clientIds: ['historyId'],
    response: BudgetCellSchema,
    responseDescription: 'The cell as it now stands.',
    notes: `Body: \`assignedCents\` (replaces what the category is assigned that month) and/or \`carryOverspending\` (true: cash overspending stays in the category, month after month). Income categories are refused (400 \`BUDGET_INCOME_CATEGORY\`). ${historyNote}`,
    errors: {
      400: ['BUDGET_INCOME_CATEGORY', 'NOTHING_TO_UPDATE', 'BUDGET_AMOUNT_OUT_OF_RANGE'],
      409: ['ID_ALREADY_EXISTS'],
    },
  }),
  operationRoute(operations.budgets.history, {
    method: 'get',
    path: `${category}/history`,
    status: 200,
    tag,
    params: categoryParams,
    response: BudgetHistorySchema,
    responseDescription: 'The history, newest first.',
  }),
  operationRoute(operations.budgets.move, {
    method: 'post',
    path: `${month}/move`,
    status: 200,
    tag,
    params: monthParams,
    clientIds: ['historyId'],
    response: BudgetMoveSchema,
    responseDescription: 'Both cells as they now stand.',
    notes: `Body: \`fromCategoryId\`, \`toCategoryId\`, \`amountCents\` (positive). Both assignments change in one transaction; each side gets a history entry (\`<historyId>:from\`, \`<historyId>:to\`). ${historyNote}`,
    errors: {
      400: ['BUDGET_MOVE_SAME_CATEGORY', 'BUDGET_INCOME_CATEGORY', 'BUDGET_AMOUNT_OUT_OF_RANGE'],
      409: ['ID_ALREADY_EXISTS'],
    },
  }),
  operationRoute(operations.budgets.deleteCategory, {
    method: 'post',
    path: `${category}/delete`,
    status: 200,
    tag,
    params: categoryParams,
    clientIds: ['historyId'],
    response: BudgetCategoryDeletionSchema,
    responseDescription: 'What moved, and where.',
    notes: `Body: \`moveToCategoryId\`. Deletes the category and moves what it has available that month to the other category, in one transaction: money it holds goes to the other (a move, with a history entry on each side, \`<historyId>:from\` and \`<historyId>:to\`); overspending is covered by the other. The category is then deleted as \`DELETE H/categories/{categoryId}\` does. Needs \`write:categories\` and \`write:budgets\`. ${historyNote}`,
    errors: {
      400: ['BUDGET_MOVE_SAME_CATEGORY', 'BUDGET_INCOME_CATEGORY', 'BUDGET_AMOUNT_OUT_OF_RANGE'],
      409: ['ID_ALREADY_EXISTS'],
    },
  }),
  operationRoute(operations.budgets.copyFrom, {
    method: 'post',
    path: `${month}/copy-from/{sourceYearMonth}`,
    status: 200,
    tag,
    params: { yearMonth: 'month', sourceYearMonth: 'sourceMonth' },
    clientIds: ['historyId'],
    optionalBody: true,
    response: BudgetMonthChangeSchema,
    responseDescription: 'How many categories changed.',
    notes: `Every category gets the source month's assignment; one assigned in the month but not in the source goes back to 0. ${historyNote}`,
    errors: { 400: ['BUDGET_COPY_SAME_MONTH'], 409: ['ID_ALREADY_EXISTS'] },
  }),
  operationRoute(operations.budgets.reset, {
    method: 'post',
    path: `${month}/reset`,
    status: 200,
    tag,
    params: monthParams,
    clientIds: ['historyId'],
    optionalBody: true,
    response: BudgetMonthChangeSchema,
    responseDescription: 'How many categories changed.',
    notes: `Every assignment of the month goes back to 0. Owner only. ${historyNote}`,
    errors: { 409: ['ID_ALREADY_EXISTS'] },
  }),
  operationRoute(operations.budgets.autoAssignFromGoals, {
    method: 'post',
    path: `${month}/auto-assign-from-goals`,
    status: 200,
    tag,
    params: monthParams,
    clientIds: ['historyId'],
    optionalBody: true,
    response: BudgetAutoAssignSchema,
    responseDescription: 'The categories raised, and what is left to assign.',
    notes: `Every category whose goal is underfunded this month is raised to the goal's suggested amount: overspent categories first, then by soonest due date (no date last), then in display order, until Ready to Assign reaches zero (the last one may be raised only part way). ${historyNote}`,
    errors: { 409: ['ID_ALREADY_EXISTS'] },
  }),
]
