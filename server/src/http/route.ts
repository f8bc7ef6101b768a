import { ProblemSchema } from '@hearth/contracts'
import type { Scope } from '@hearth/engine'
import { createRoute, type RouteConfig, z } from '@hono/zod-openapi'
import { requireScope } from './scope.ts'

const problemContent = { 'application/problem+json': { schema: ProblemSchema } }

/** The error answers every hand-written authenticated route can give, with their codes. */
const ERROR_RESPONSES = {
  400: {
    description: 'Invalid input: `VALIDATION_FAILED`, `MALFORMED_JSON`.',
    content: problemContent,
  },
  401: {
    description: 'No API key, or an unknown or revoked one: `UNAUTHENTICATED`.',
    content: problemContent,
  },
  403: { description: 'The key lacks the scope: `INSUFFICIENT_SCOPE`.', content: problemContent },
  404: {
    description: 'Not found, or not in a household you belong to: `NOT_FOUND`.',
    content: problemContent,
  },
} as const

/** The JSON request body of a route, required, validated by its zod contract. */
export function jsonBody<S extends z.ZodType>(schema: S, description?: string) {
  return { required: true, description, content: { 'application/json': { schema } } }
}

/** A JSON success response. */
export function jsonResponse<S extends z.ZodType>(schema: S, description: string) {
  return { description, content: { 'application/json': { schema } } }
}

/**
 * Declares a hand-written authenticated route, for what is not a registry operation (the sync
 * fallbacks): bearer security, the one scope it needs (checked before the body is read), the
 * shared error answers, and no query parameters unless it declares them. Operations use
 * `operationRoute` instead.
 */
export function apiRoute<R extends RouteConfig>(config: R & { scope: Scope; operationId: string }) {
  const { scope, ...route } = config
  return createRoute({
    ...route,
    // A route that takes no query parameters refuses any, as every operation route does.
    request: { query: z.strictObject({}), ...route.request },
    description: `${route.description ? `${route.description}\n\n` : ''}Requires scope \`${scope}\`.`,
    security: [{ bearerAuth: [] }],
    middleware: [requireScope(scope)],
    responses: { ...ERROR_RESPONSES, ...route.responses },
  } as unknown as R)
}

export { z }
