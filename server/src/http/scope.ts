import { insufficientScope, type Scope } from '@hearth/engine'
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from './env.ts'
import { engineProblem } from './problem.ts'

/** Refuses a caller whose key lacks `scope` with 403 INSUFFICIENT_SCOPE, before the body is read. */
export function requireScope(scope: Scope): MiddlewareHandler<AppEnv> {
  return async function requireScope(c, next) {
    if (!c.get('caller').scopes.includes(scope)) return engineProblem(c, insufficientScope(scope))
    return next()
  }
}
