import { ProblemSchema } from '@hearth/contracts'
import type { Store } from '@hearth/engine'
import { type OpenAPIHono, z } from '@hono/zod-openapi'
import { CostLimiter, costedHandler } from './cost-limits.ts'
import type { AppEnv } from './env.ts'
import {
  argName,
  hasBody,
  type OperationRoute,
  operationHandler,
  paramsOf,
  shapeOf,
} from './operation-route.ts'
import { type AnswerSeal, answerSeal } from './sealed-answers.ts'

const problemContent = { 'application/problem+json': { schema: ProblemSchema } }

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid input',
  401: 'No API key, or an unknown or revoked one (`UNAUTHENTICATED`)',
  403: 'Forbidden',
  404: 'Not found, or not in a household you belong to',
  409: 'Conflicts with the current state',
  415: 'The body is not JSON (`UNSUPPORTED_MEDIA_TYPE`)',
  422: 'Unprocessable',
  429: 'Too many requests',
}

const IdempotencyKeyHeader = z
  .string()
  .min(1)
  .max(255)
  .optional()
  .meta({
    description:
      'Makes a retry safe: the first answer is stored with the write, in its transaction, and replayed for 24 hours ' +
      'to a request with the same key, method, path and body (`Idempotent-Replayed: true`). Another request under ' +
      'the same key answers 422 `IDEMPOTENCY_KEY_REUSED`. A secret the answer shows once (a new key, a code, a ' +
      'webhook secret) is kept sealed, never in clear; docs/security.md says when a replay cannot show it (410 ' +
      '`SECRET_NOT_REPLAYABLE`).',
  })

const IfMatchHeader = z
  .string()
  .optional()
  .meta({
    description:
      'The `ETag` of the resource as you last read it (`GET` at this path). The write happens only if the resource ' +
      'still has it; otherwise 412 `PRECONDITION_FAILED` and nothing changes. `*` matches any.',
  })

/** A ULID the caller may choose, or leave out for the route to make. */
function clientId(schema: z.ZodType): z.ZodType {
  return schema.optional().meta({ description: 'Your own ULID for the new row; one is made if omitted.' })
}

/**
 * Registers bound operations on the app: each route's handler and its OpenAPI entry. `seal` keeps
 * the secrets of stored idempotent answers; a key of this process only when omitted.
 */
export function mountOperationRoutes(
  app: OpenAPIHono<AppEnv>,
  store: Store,
  routes: readonly OperationRoute[],
  seal: AnswerSeal = answerSeal(undefined),
  costs: CostLimiter = new CostLimiter(),
) {
  // A write with a read at its path honours If-Match against that read's ETag.
  const reads = new Map(routes.filter((r) => r.spec.method === 'get').map((r) => [r.spec.path, r]))
  for (const route of routes) {
    const read = route.spec.method === 'get' ? undefined : reads.get(route.spec.path)
    app.openAPIRegistry.registerPath(openApiEntry(route, read !== undefined) as never)
    app.on(
      route.spec.method.toUpperCase(),
      honoPath(route.spec.path),
      costedHandler(costs, route.operation, (s) => operationHandler(s, route, read, seal), store),
    )
  }
}

/** `/a/{b}` as Hono writes it: `/a/:b`. */
function honoPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1')
}

/** The OpenAPI entry of a bound operation, every fact taken from the operation or the route once. */
export function openApiEntry({ operation, spec }: OperationRoute, ifMatch = false) {
  const pathParams = paramsOf(spec.path).filter((p) => p !== 'householdId')
  const fromPath = new Set(pathParams.map((p) => argName(spec, pathParams, p)))
  const shape = shapeOf(operation) as Record<string, z.ZodType>
  const rest = Object.fromEntries(
    Object.entries(shape)
      .filter(([k]) => !fromPath.has(k))
      .map(([k, s]) => [k, spec.clientIds?.includes(k) ? clientId(s) : s]),
  )
  const input = spec.input ?? z.strictObject(rest)
  const params = z.object({
    ...(spec.path.includes('{householdId}') && {
      householdId: z
        .string()
        .meta({ description: 'A household id, or `current` for your default household.' }),
    }),
    // Which argument of the operation (and so of the SDK call) the parameter fills.
    ...Object.fromEntries(
      pathParams.map((p) => [p, z.string().meta({ 'x-hearth-argument': argName(spec, pathParams, p) })]),
    ),
  })
  const write = hasBody(spec)
  const scopeLine = operation.scope
    ? `Requires scope \`${operation.scope}\`.`
    : 'Any valid API key may call it.'
  const roleLine = operation.ownerOnly
    ? ' Only an owner of the household may call it (403 `OWNER_ONLY`).'
    : ''
  return {
    method: spec.method,
    path: spec.path,
    operationId: operation.name,
    tags: [spec.tag],
    summary: spec.summary ?? operation.description.replace(/\.$/, ''),
    description: [spec.summary ? operation.description : null, spec.notes, `${scopeLine}${roleLine}`]
      .filter(Boolean)
      .join('\n\n'),
    security: [{ bearerAuth: [] }],
    request: {
      params,
      ...((write || ifMatch) && {
        headers: z.object({
          ...(write && { 'idempotency-key': IdempotencyKeyHeader }),
          ...(ifMatch && { 'if-match': IfMatchHeader }),
        }),
      }),
      ...(!write && Object.keys(rest).length > 0 && { query: input }),
      ...(write &&
        (spec.input !== undefined || Object.keys(rest).length > 0) && {
          body: {
            required: !spec.optionalBody,
            content: {
              'application/json': { schema: input },
              ...(spec.form && { 'multipart/form-data': { schema: spec.form.schema } }),
            },
          },
        }),
    },
    responses: {
      [spec.status]:
        spec.status === 204
          ? { description: spec.responseDescription ?? 'Done; no body.' }
          : {
              description: spec.responseDescription ?? 'Success.',
              content: { 'application/json': { schema: spec.response ?? z.unknown() } },
            },
      ...errorResponses(spec, operation, write, pathParams.length > 0 || spec.path.includes('{householdId}')),
      ...(ifMatch && {
        412: {
          description: 'If-Match named another version of the resource: `PRECONDITION_FAILED`.',
          content: problemContent,
        },
      }),
    },
  }
}

function errorResponses(
  spec: OperationRoute['spec'],
  operation: OperationRoute['operation'],
  write: boolean,
  hasPathIds: boolean,
) {
  const codes: Record<number, string[]> = {
    400: [
      'VALIDATION_FAILED',
      ...(write ? ['MALFORMED_JSON'] : []),
      ...(spec.form ? ['MALFORMED_MULTIPART'] : []),
      ...(spec.errors?.[400] ?? []),
    ],
    401: ['UNAUTHENTICATED'],
    403: [
      ...(operation.scope ? ['INSUFFICIENT_SCOPE'] : []),
      ...(operation.ownerOnly ? ['OWNER_ONLY'] : []),
      ...(spec.errors?.[403] ?? []),
    ],
    404: hasPathIds ? ['NOT_FOUND', ...(spec.errors?.[404] ?? [])] : [...(spec.errors?.[404] ?? [])],
    409: [...(spec.errors?.[409] ?? [])],
    415: write ? ['UNSUPPORTED_MEDIA_TYPE'] : [],
    422: [...(write ? ['IDEMPOTENCY_KEY_REUSED'] : []), ...(spec.errors?.[422] ?? [])],
    // An operation that may be expensive runs under the cost limits (cost-limits.ts).
    429: [
      ...(operation.level === 'household' && operation.cost !== 'cheap' && operation.cost !== 'read-heavy'
        ? ['TOO_MANY_EXPENSIVE_REQUESTS']
        : []),
      ...(spec.errors?.[429] ?? []),
    ],
  }
  return Object.fromEntries(
    Object.entries(codes)
      .filter(([, list]) => list.length > 0)
      .map(([status, list]) => [
        status,
        {
          description: `${STATUS_TEXT[Number(status)]}: ${list.map((code) => `\`${code}\``).join(', ')}.`,
          content: problemContent,
        },
      ]),
  )
}
