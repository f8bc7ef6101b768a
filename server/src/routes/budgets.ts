import type { OperationRoute } from '../http/operation-route.ts'

/** Budgets routes (filled in by its issue). */
export const budgetRoutes: OperationRoute[] = []
