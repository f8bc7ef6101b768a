import { AgeOfMoneySchema } from '@hearth/contracts'
import { operations } from '@hearth/engine'
import { type OperationRoute, operationRoute } from '../http/operation-route.ts'

/**
 * The age of money. Its own table, mounted before the budget routes, so `age-of-money` is
 * matched here before `/budgets/{yearMonth}` could refuse it as a reserved word.
 */
export const ageOfMoneyRoutes: OperationRoute[] = [
  operationRoute(operations.budgets.ageOfMoney, {
    method: 'get',
    path: '/households/{householdId}/budgets/age-of-money',
    status: 200,
    tag: 'Budgets',
    response: AgeOfMoneySchema,
    responseDescription: 'The age of money and the outflows it averages.',
    notes:
      "Query `asOf` (YYYY-MM-DD, optional; default the caller's local today): rows dated later are left out. Counts cash accounts (on budget, not credit) in the base currency; a transfer between two of them never counts, a card payment or a transfer to an off-budget account is an outflow. See docs/budgets.md, Age of money.",
  }),
]
