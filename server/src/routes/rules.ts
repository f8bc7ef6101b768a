import type { OperationRoute } from '../http/operation-route.ts'

/** Rules routes (filled in by its issue). */
export const ruleRoutes: OperationRoute[] = []
