import { ProblemSchema } from '@hearth/contracts'
import { type Scope, UlidSchema } from '@hearth/engine'
import { createRoute, type RouteConfig, z } from '@hono/zod-openapi'
import { requireScope } from './scope.ts'

const problemContent = { 'application/problem+json': { schema: ProblemSchema } }

/** The error answers every authenticated route can give, listed once for the OpenAPI document. */
const ERROR_RESPONSES = {
  400: { description: 'Invalid input: malformed JSON, unknown or invalid fields.', content: problemContent },
  401: { description: 'No API key, or an unknown or revoked one.', content: problemContent },
  403: { description: 'The key lacks the scope, or the role is too low.', content: problemContent },
  404: { description: 'Not found, or not in a household you belong to.', content: problemContent },
  409: {
    description: 'Conflicts with the current state, or the same Idempotency-Key is in flight.',
    content: problemContent,
  },
  422: { description: 'Idempotency-Key reused with another request.', content: problemContent },
} as const

/** `{householdId}`: a household id, or `current` for the caller's default household. */
export const HouseholdParams = z.object({
  householdId: z.string().meta({ description: 'A household id, or `current` for your default household.' }),
})

/** An optional client-chosen ULID for a new row; the route makes one when it is left out. */
export const ClientId = UlidSchema.optional().meta({
  description: 'Your own ULID for the new row; one is made if omitted.',
})

/** The JSON request body of a route, required, validated by its zod contract. */
export function jsonBody<S extends z.ZodType>(schema: S, description?: string) {
  return { required: true, description, content: { 'application/json': { schema } } }
}

/** A JSON success response. */
export function jsonResponse<S extends z.ZodType>(schema: S, description: string) {
  return { description, content: { 'application/json': { schema } } }
}

/**
 * Declares an authenticated route: bearer security, the one scope it needs (checked before the
 * body is read), and the shared error answers. The scope is stated in the operation's description.
 */
export function apiRoute<R extends RouteConfig>(config: R & { scope: Scope }) {
  const { scope, ...route } = config
  return createRoute({
    ...route,
    description: `${route.description ? `${route.description}\n\n` : ''}Requires scope \`${scope}\`.`,
    security: [{ bearerAuth: [] }],
    middleware: [requireScope(scope)],
    responses: { ...ERROR_RESPONSES, ...route.responses },
  } as unknown as R)
}

export { z }
