/**
 * Why a Hearth instance cannot open or sync: a refusal from the server (`UNAUTHENTICATED`,
 * `INSUFFICIENT_SCOPE`, `NOT_FOUND`, ...), or an option it cannot work with. `code` is stable;
 * a refusal from the replica itself is the engine's `EngineError` instead.
 */
export class HearthError extends Error {
  readonly code: string
  /** The HTTP status the server answered with, when it answered over HTTP. */
  readonly status?: number

  constructor(code: string, message: string, status?: number) {
    super(message)
    this.name = 'HearthError'
    this.code = code
    this.status = status
  }
}
