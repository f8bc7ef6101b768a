import { ForecastSchema } from '@hearth/contracts'
import { operations } from '@hearth/engine'
import { type OperationRoute, operationRoute } from '../http/operation-route.ts'

/** A month's spending forecast per category. See docs/api/forecasts.md. */
export const forecastRoutes: OperationRoute[] = [
  operationRoute(operations.forecasts.get, {
    method: 'get',
    path: '/households/{householdId}/forecasts/{yearMonth}',
    status: 200,
    tag: 'Forecasts',
    params: { yearMonth: 'month' },
    response: ForecastSchema,
    responseDescription: 'The forecast.',
    notes:
      'Per category: actual so far, scheduled rest (unbooked recurrence occurrences, rows dated later), projected ' +
      'variable rest, and total. A past month answers its actuals. `refine=true` is accepted; no refinement pass ' +
      'exists yet, and `refinement.applied` is false.',
  }),
]
