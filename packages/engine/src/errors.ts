/** A refusal the engine raises on purpose; the server maps it to problem+json, sync to a rejection. */
export class EngineError extends Error {
  readonly code: string
  readonly status: number
  readonly errors?: FieldError[]
  readonly extra?: Record<string, unknown>

  constructor(
    status: number,
    code: string,
    message: string,
    options: { errors?: FieldError[]; extra?: Record<string, unknown> } = {},
  ) {
    super(message)
    this.name = 'EngineError'
    this.status = status
    this.code = code
    this.errors = options.errors
    this.extra = options.extra
  }
}

/** One field problem in a 400 answer: where it is and what is wrong. */
export interface FieldError {
  path: string
  message: string
  code?: string
}

/** The row does not exist, or belongs to another household: both answer 404 so ids leak nothing. */
export function notFound(what: string, id?: string): EngineError {
  return new EngineError(404, 'NOT_FOUND', id ? `${what} ${id} was not found.` : `${what} was not found.`, {
    extra: { resource: what },
  })
}

/** The caller lacks a scope the operation needs. */
export function insufficientScope(scope: string): EngineError {
  return new EngineError(403, 'INSUFFICIENT_SCOPE', `This operation requires the scope ${scope}.`, {
    extra: { requiredScope: scope },
  })
}

/** The caller's role in the household is too low for the operation. */
export function ownerOnly(): EngineError {
  return new EngineError(403, 'OWNER_ONLY', 'Only an owner of this household can do this.')
}

/** The input is well-formed but breaks a rule of the domain. */
export function invalid(code: string, message: string, errors?: FieldError[]): EngineError {
  return new EngineError(400, code, message, { errors })
}

/** The request conflicts with the current state of a row. */
export function conflict(code: string, message: string, extra?: Record<string, unknown>): EngineError {
  return new EngineError(409, code, message, { extra })
}
