import { EngineError, type FieldError } from '@hearth/engine'
import type { Context } from 'hono'
import type { StatusCode } from 'hono/utils/http-status'

/** The problem-type URI base; each code has an anchor in docs/errors.md. */
const TYPE_BASE = 'https://hearth.dev/problems/'

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
}

/** What a problem response carries besides status and code. */
export interface ProblemInit {
  detail?: string
  errors?: FieldError[]
  headers?: Record<string, string>
  [extra: string]: unknown
}

/** Answers with an `application/problem+json` body, the one error shape of the API. */
export function problem(c: Context, status: number, code: string, init: ProblemInit = {}): Response {
  const { headers, ...fields } = init
  const body = {
    type: `${TYPE_BASE}${code.toLowerCase().replaceAll('_', '-')}`,
    title: TITLES[status] ?? 'Error',
    status,
    code,
    ...fields,
    instance: c.req.path,
    requestId: c.get('requestId' as never) as string | undefined,
  }
  // Through the context, so the headers set before the route (request id, rate limits) are on it.
  return c.newResponse(JSON.stringify(body), status as StatusCode, {
    'content-type': 'application/problem+json',
    ...headers,
  })
}

/** Turns an engine refusal into its problem response. */
export function engineProblem(c: Context, error: EngineError): Response {
  return problem(c, error.status, error.code, { detail: error.message, errors: error.errors, ...error.extra })
}

export { EngineError }
