import { createHash } from 'node:crypto'
import {
  type ActorContext,
  applyMutation,
  authorize,
  claimIdempotencyKey,
  type Database,
  EngineError,
  type HouseholdContext,
  type IdempotencyClaim,
  insufficientScope,
  newUlid,
  type Operation,
  parseArgs,
  type Query,
  runQuery,
  type Store,
  type StoredAnswer,
  storeIdempotentAnswer,
  storeIdempotentRefusal,
} from '@hearth/engine'
import type { Context } from 'hono'
import type { StatusCode } from 'hono/utils/http-status'
import type { Transaction } from 'kysely'
import { type AppEnv, actorContext, householdContext } from './env.ts'
import { engineProblem, problem } from './problem.ts'
import { RESERVED_PATH_WORDS } from './reserved-path-words.ts'
import type { AnswerSeal } from './sealed-answers.ts'

/** What a request brought, before it becomes an operation's arguments. */
export interface RouteInput {
  /** Path parameters other than `householdId`. */
  params: Record<string, string>
  query: Record<string, string | string[]>
  /** The parsed JSON body; `{}` when a write sends none and its body is optional. */
  body: unknown
  /** The household the path names, for a household operation; its membership is checked already. */
  householdId?: string
}

/** How one route binds an operation: method, path, status and what the contract adds. */
export interface OperationRouteSpec {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete'
  /** The OpenAPI path, such as `/households/{householdId}/tags/{tagId}`. */
  path: string
  status: 200 | 201 | 202 | 204
  /** The success body's schema; omit for 204. */
  response?: import('zod').ZodType
  /** What the response is, in a few words. */
  responseDescription?: string
  /** The OpenAPI tag (its group in the reference). */
  tag: string
  /** The OpenAPI summary; the operation's description when omitted. */
  summary?: string
  /** Rules, defaults and error codes beyond the operation's one-line description. */
  notes?: string
  /** Path parameters (besides householdId) and the argument each fills; default: the last one is `id`. */
  params?: Record<string, string>
  /** ULID arguments a caller may leave out and the route then makes (`id` of a create, say). */
  clientIds?: readonly string[]
  /** The documented body or query schema, when it is not the operation's arguments less the path's. */
  input?: import('zod').ZodType
  /** A write whose body may be left out entirely (it then counts as `{}`). */
  optionalBody?: boolean
  /**
   * A write that also takes `multipart/form-data` (a file upload): turns the form into the body
   * a JSON caller would send, refusing what it cannot (EngineError). Documented beside JSON.
   */
  form?: FormBody
  /** The error codes this operation answers with, by status, for its OpenAPI entry. */
  errors?: Partial<Record<400 | 403 | 404 | 409 | 422 | 429, readonly string[]>>
  /**
   * Turns the request into arguments, when merging path, query and body is not enough; it may
   * wait on the server's own work (minting a secret, resolving a webhook's host) but not the store.
   */
  prepare?(input: RouteInput): Prepared | Promise<Prepared>
  /** Shapes the success body from the operation's result. */
  present?(result: unknown): unknown
  /**
   * The success body's field that holds a secret shown once (a new key, a code, a signing
   * secret): the answer kept for an Idempotency-Key replay holds it sealed, never in clear.
   */
  secretField?: string
  /**
   * The household operation makes the household its `id` argument names (`households.create`):
   * its path names none, and it runs in the new household with the caller as its owner.
   */
  createsHousehold?: boolean
}

/** How a route reads a `multipart/form-data` body, and what the form holds for its OpenAPI entry. */
export interface FormBody {
  read(form: FormData): Record<string, unknown> | Promise<Record<string, unknown>>
  schema: import('zod').ZodType
}

/** A route's arguments, and how to shape the success body from the result. */
export interface Prepared {
  args: unknown
  present?(result: unknown): unknown
}

/** An operation bound to a route. */
export interface OperationRoute {
  operation: Operation
  spec: OperationRouteSpec
}

/** Binds a registry operation to a method, path and status; scope and description come from it. */
export function operationRoute(operation: Operation, spec: OperationRouteSpec): OperationRoute {
  if (operation.audience === 'system') {
    throw new Error(`${operation.name} is a system operation; no route may expose it`)
  }
  const pathParams = paramsOf(spec.path).filter((p) => p !== 'householdId')
  if (
    operation.level === 'household' &&
    !spec.createsHousehold &&
    !spec.path.startsWith('/households/{householdId}')
  ) {
    throw new Error(
      `${operation.name} is a household operation; its path must start with /households/{householdId}`,
    )
  }
  for (const p of pathParams) {
    if (!(argName(spec, pathParams, p) in shapeOf(operation)) && !spec.prepare) {
      throw new Error(`${operation.name}: path parameter {${p}} fills no argument`)
    }
  }
  return { operation, spec }
}

/** The `{name}` parameters of an OpenAPI path, in order. */
export function paramsOf(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
}

/** The argument a path parameter fills: as the spec maps it, else `id` for the last one. */
export function argName(spec: OperationRouteSpec, pathParams: readonly string[], param: string): string {
  return spec.params?.[param] ?? (param === pathParams.at(-1) ? 'id' : param)
}

/** The argument shape of an operation, or `{}` when its schema is not an object. */
export function shapeOf(operation: Operation): Record<string, unknown> {
  return (operation.args as { shape?: Record<string, unknown> }).shape ?? {}
}

/** Whether the method carries a JSON body. */
export function hasBody(spec: OperationRouteSpec): boolean {
  return spec.method === 'post' || spec.method === 'patch' || spec.method === 'put'
}

/**
 * Serves one bound operation: reads path, query and body into arguments (a body or query field
 * the route does not take is refused by the operation's strict schema), authorizes before the
 * body is parsed, runs it, and answers with its status. A write runs with its Idempotency-Key
 * claim and stored answer in the one transaction of the write itself.
 */
export function operationHandler(
  store: Store,
  { operation, spec }: OperationRoute,
  read: OperationRoute | undefined,
  seal: AnswerSeal,
) {
  const secretField = spec.secretField
  // Only a success carries the secret; a stored refusal is kept as it was sent.
  const sealed = (a: StoredAnswer): StoredAnswer =>
    secretField && a.body !== null && a.status < 300 ? { ...a, body: seal.seal(a.body, secretField) } : a
  const pathParams = paramsOf(spec.path).filter((p) => p !== 'householdId')
  return async function operationHandler(c: Context<AppEnv>): Promise<Response> {
    const params: Record<string, string> = {}
    for (const p of pathParams) {
      const value = c.req.param(p) ?? ''
      if (RESERVED_PATH_WORDS.has(value)) {
        return problem(c, 404, 'ROUTE_NOT_FOUND', { detail: `No route for ${c.req.method} ${c.req.path}.` })
      }
      params[p] = value
    }
    const inHousehold = operation.level === 'household' && !spec.createsHousehold
    const actor = inHousehold ? householdContext(c.var) : actorContext(c.var)
    if (spec.createsHousehold) {
      if (operation.scope && !actor.scopes.includes(operation.scope)) throw insufficientScope(operation.scope)
    } else authorize(operation, actor)
    const type = c.req.header('content-type') ?? ''
    const multipart = spec.form !== undefined && /^multipart\/form-data\b/i.test(type)
    // A form is read first and fingerprinted as the body it stands for: a retry's new boundary
    // (curl draws one per request) is the same request.
    const form = multipart
      ? await spec.form!.read(await formOf(Buffer.from(await c.req.arrayBuffer()), type))
      : null
    const rawBody = form ? JSON.stringify(form) : hasBody(spec) ? await c.req.text() : ''
    const claim = idempotencyClaim(c, rawBody)
    if (claim instanceof Response) return claim
    const body = form ?? parseBody(c, spec, rawBody)
    const input: RouteInput = {
      params,
      query: queryOf(c, operation),
      body,
      ...(inHousehold && { householdId: (actor as { householdId: string }).householdId }),
    }
    const prepared = (await spec.prepare?.(input)) ?? { args: mergeInput(spec, pathParams, input) }
    const present = prepared.present ?? spec.present ?? ((r: unknown) => r)
    const ctx = spec.createsHousehold
      ? { ...actor, householdId: String((prepared.args as { id?: unknown }).id), role: 'owner' as const }
      : actor
    const answer = (result: unknown): StoredAnswer =>
      spec.status === 204
        ? { status: 204, contentType: null, body: null }
        : { status: spec.status, contentType: 'application/json', body: JSON.stringify(present(result)) }

    if (operation.kind === 'query') {
      const read = answer(await runQuery(store.db, operation, prepared.args, ctx))
      return respond(c, read, false, spec.method === 'get' ? entityTag(read.body) : undefined)
    }
    const ifMatch = read && spec.method !== 'post' ? c.req.header('if-match') : undefined
    try {
      const outcome = await store.db.transaction().execute(async (tx) => {
        if (claim) {
          const decision = await claimIdempotencyKey(tx, claim)
          if (decision.kind !== 'proceed') return decision
        }
        // Parsed after the claim, so a retry of a refused request replays its refusal.
        const args = parseArgs(operation.args, prepared.args)
        if (ifMatch !== undefined)
          await checkIfMatch(tx, read!, { ...input, query: {}, body: {} }, ctx, ifMatch)
        const { result } = await applyMutation(tx, operation, args, ctx)
        const stored = answer(result)
        if (claim) await storeIdempotentAnswer(tx, claim, sealed(stored))
        return { kind: 'answer' as const, ...stored }
      })
      if (outcome.kind === 'mismatch') return keyReused(c)
      if (outcome.kind === 'replay' && secretField && outcome.body !== null && outcome.status < 300) {
        const body = seal.open(outcome.body, secretField)
        if (body === null) return secretGone(c, seal.withoutSecret(outcome.body, secretField), secretField)
        return respond(c, { ...outcome, body }, true)
      }
      return respond(c, outcome, outcome.kind === 'replay')
    } catch (error) {
      if (!(error instanceof EngineError) || !claim || error.status >= 500) throw error
      // A refusal is an answer too: a retry with the same key gets it again rather than a rerun.
      const refusal = engineProblem(c, error)
      await storeIdempotentRefusal(store.db, claim, {
        status: refusal.status,
        contentType: refusal.headers.get('content-type'),
        body: await refusal.clone().text(),
      })
      return refusal
    }
  }
}

/** An answer made through the context, so the headers set before the route (request id, rate limits) are on it. */
function respond(c: Context, answer: StoredAnswer, replayed = false, etag?: string): Response {
  const headers: Record<string, string> = {}
  if (answer.contentType) headers['content-type'] = answer.contentType
  if (replayed) headers['idempotent-replayed'] = 'true'
  if (etag) headers.etag = etag
  return c.newResponse(answer.body, answer.status as StatusCode, headers)
}

/** A strong entity tag of a read's body: the same representation, the same tag, on any instance. */
export function entityTag(body: string | null): string {
  return `"${createHash('sha256')
    .update(body ?? '')
    .digest('base64url')
    .slice(0, 27)}"`
}

/**
 * Honours `If-Match` on a write: the resource's read, run in the write's transaction after the
 * household's clock is locked (so no other write lands between the check and this one), must
 * carry one of the tags given, or the write is refused with 412 and nothing changes.
 */
async function checkIfMatch(
  tx: Transaction<Database>,
  read: OperationRoute,
  input: RouteInput,
  ctx: ActorContext,
  header: string,
): Promise<void> {
  const householdId = (ctx as Partial<HouseholdContext>).householdId
  if (householdId) {
    await tx
      .selectFrom('household_clock')
      .select('version')
      .where('household_id', '=', householdId)
      .forUpdate()
      .execute()
  }
  const readParams = paramsOf(read.spec.path).filter((p) => p !== 'householdId')
  const args = (await read.spec.prepare?.(input))?.args ?? mergeInput(read.spec, readParams, input)
  const result = await runQuery(tx, read.operation as Query, args, ctx)
  const body = JSON.stringify((read.spec.present ?? ((r: unknown) => r))(result))
  const current = entityTag(body)
  const wanted = header.split(',').map((t) => t.trim().replace(/^W\//, ''))
  if (!wanted.includes('*') && !wanted.includes(current)) {
    throw new EngineError(
      412,
      'PRECONDITION_FAILED',
      'The resource changed since you read it (If-Match does not match its ETag). Read it again, then retry.',
      { extra: { etag: current } },
    )
  }
}

/**
 * A replay whose secret was sealed under a key this server no longer has (a restart without
 * `HEARTH_WEBHOOK_SECRET_KEY`, another instance): the write happened, the secret is gone.
 */
function secretGone(c: Context<AppEnv>, resource: Record<string, unknown>, field: string): Response {
  return problem(c, 410, 'SECRET_NOT_REPLAYABLE', {
    detail:
      `This request succeeded earlier, but its \`${field}\` was sealed under a key this server no longer ` +
      'holds, so it cannot be shown again. `resource` is what was made: revoke it (or rotate its secret) ' +
      'and make another. Set HEARTH_WEBHOOK_SECRET_KEY for replays that outlast a restart.',
    resource,
  })
}

function keyReused(c: Context<AppEnv>): Response {
  return problem(c, 422, 'IDEMPOTENCY_KEY_REUSED', {
    detail: 'This Idempotency-Key was already used for a different request. Use a new key for a new request.',
  })
}

/** The caller's claim on the request's Idempotency-Key, if it sent one with a write. */
function idempotencyClaim(c: Context<AppEnv>, rawBody: string): IdempotencyClaim | Response | null {
  const key = c.req.header('idempotency-key')
  if (key === undefined || c.req.method === 'GET' || c.req.method === 'DELETE') return null
  if (key.length === 0 || key.length > 255) {
    return problem(c, 400, 'INVALID_IDEMPOTENCY_KEY', {
      detail: 'Idempotency-Key must be 1 to 255 characters.',
    })
  }
  const fingerprint = createHash('sha256').update(`${c.req.method} ${c.req.path}\n${rawBody}`).digest('hex')
  return { userId: c.get('caller').userId, key, fingerprint }
}

/**
 * The query string as arguments: a key given twice becomes a list, when the argument is one.
 * Every key stays an own property, `__proto__` included, so the operation's schema refuses an
 * unknown one by name rather than an assignment to `__proto__` dropping it.
 */
function queryOf(c: Context<AppEnv>, operation: Operation): Record<string, string | string[]> {
  const shape = shapeOf(operation)
  return Object.fromEntries(
    Object.entries(c.req.queries()).map(([key, values]) => [
      key,
      values.length > 1 || (Object.hasOwn(shape, key) && isArraySchema(shape[key])) ? values : values[0]!,
    ]),
  )
}

function isArraySchema(schema: unknown): boolean {
  let s = schema as { def?: { type?: string; innerType?: unknown; in?: unknown } } | undefined
  for (let i = 0; s && i < 5; i++) {
    if (s.def?.type === 'array') return true
    s = (s.def?.innerType ?? s.def?.in) as typeof s
  }
  return false
}

/** A multipart body's form; a body that is not one answers 400 `MALFORMED_MULTIPART`. */
async function formOf(bytes: Buffer, type: string): Promise<FormData> {
  try {
    return await new Response(new Uint8Array(bytes), { headers: { 'content-type': type } }).formData()
  } catch {
    throw new EngineError(
      400,
      'MALFORMED_MULTIPART',
      'The request body is not valid multipart/form-data (check the boundary in Content-Type).',
    )
  }
}

/** Parses a write's body: JSON only, an object, required unless the route says otherwise. */
function parseBody(c: Context<AppEnv>, spec: OperationRouteSpec, raw: string): unknown {
  if (!hasBody(spec)) return {}
  if (raw.trim() === '') {
    if (spec.optionalBody) return {}
    throw new EngineError(400, 'VALIDATION_FAILED', 'The request has invalid fields.', {
      errors: [{ path: '', message: 'A JSON object body is required.', code: 'required' }],
    })
  }
  const type = c.req.header('content-type') ?? ''
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
    throw new EngineError(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      spec.form
        ? 'Send the body as application/json or multipart/form-data.'
        : 'Send the body as application/json.',
    )
  }
  let body: unknown
  try {
    body = JSON.parse(raw)
  } catch {
    throw new EngineError(400, 'MALFORMED_JSON', 'The request body is not valid JSON.')
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new EngineError(400, 'VALIDATION_FAILED', 'The request has invalid fields.', {
      errors: [{ path: '', message: 'The body must be a JSON object.', code: 'invalid_type' }],
    })
  }
  return body
}

/** Refuses request fields by name, as the operation's strict schema refuses an unknown one. */
export function unknownFields(keys: readonly string[], message?: string): EngineError {
  return new EngineError(400, 'VALIDATION_FAILED', 'The request has invalid fields.', {
    errors: keys.map((k) => ({
      path: k,
      message: message ?? `Unknown field "${k}".`,
      code: 'unknown_field',
    })),
  })
}

/**
 * Path, query and body merged into one argument object. A body or query field that the path
 * already fills is refused, so `PATCH /tags/A` with `{"id":"B"}` cannot retarget the write.
 */
function mergeInput(spec: OperationRouteSpec, pathParams: readonly string[], input: RouteInput): unknown {
  const fromPath = Object.fromEntries(pathParams.map((p) => [argName(spec, pathParams, p), input.params[p]]))
  const given = { ...input.query, ...(input.body as Record<string, unknown>) }
  // Own keys only: `constructor` or `toString` in a body is unknown, not set by the path.
  const clash = Object.keys(given).filter((k) => Object.hasOwn(fromPath, k))
  if (clash.length > 0) throw unknownFields(clash, 'Unknown field: the path sets it.')
  const ids = Object.fromEntries(
    (spec.clientIds ?? []).filter((k) => given[k] === undefined).map((k) => [k, newUlid()]),
  )
  return { ...given, ...ids, ...fromPath }
}
