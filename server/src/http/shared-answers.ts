/**
 * The answers any request can get, whatever its route, added to every operation of the OpenAPI
 * document in one place rather than restated by each route: 429 `RATE_LIMITED` from the request
 * limits every request counts against (rate-limits.ts), and 503 `STORE_UNAVAILABLE` when the
 * database cannot take a request (a PostgreSQL failover or restart, app.ts). Both carry
 * `Retry-After`. A route's own 429 (a cap of its own) keeps its words, with the limit's added.
 */
import type { OpenAPIHono } from '@hono/zod-openapi'

type OpenAPIObject = ReturnType<OpenAPIHono['getOpenAPI31Document']>

const PROBLEM = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } }

const RATE_LIMITED =
  'too many requests from this key or address; retry after the `Retry-After` seconds: `RATE_LIMITED`.'

const STORE_UNAVAILABLE = {
  description:
    'Unavailable for a moment (a database failover or restart); nothing was done, retry after the ' +
    '`Retry-After` seconds: `STORE_UNAVAILABLE`.',
  content: PROBLEM,
}

/** Paths that answer without the store or the limits: the probes and the document itself. */
const EXEMPT = new Set(['/healthz', '/readyz'])

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const

export function withSharedAnswers(doc: OpenAPIObject): OpenAPIObject {
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (EXEMPT.has(path)) continue
    for (const method of METHODS) {
      const operation = item[method]
      if (!operation) continue
      operation.responses ??= {}
      const responses = operation.responses
      const own = responses['429'] as { description: string } | undefined
      responses['429'] = own
        ? { ...own, description: `${own.description} Or ${RATE_LIMITED}` }
        : { description: `Too many requests: ${RATE_LIMITED}`, content: PROBLEM }
      responses['503'] ??= STORE_UNAVAILABLE
    }
  }
  return doc
}
