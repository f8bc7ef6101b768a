import type { OperationTree } from '../mutator/registry.ts'
import { getForecast } from './queries.ts'

/** The forecasts domain's operations (issue 26). */
export const forecastOperations = {
  forecasts: { get: getForecast },
} satisfies OperationTree
