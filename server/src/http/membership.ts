import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from './env.ts'
import { problem } from './problem.ts'

/**
 * Resolves `{householdId}` (or `current`) to a household the caller belongs to. A household
 * that does not exist and one the caller is not in answer the same 404, so ids leak nothing.
 */
export function requireMembership(): MiddlewareHandler<AppEnv> {
  return async function requireMembership(c, next) {
    const ref = c.req.param('householdId')
    if (!ref) return next()
    // `authenticate` read the membership along with the key, in one query.
    const membership = c.get('household') as AppEnv['Variables']['household'] | undefined
    if (!membership) {
      return problem(c, 404, 'NOT_FOUND', {
        detail:
          ref === 'current'
            ? 'You have no default household yet; create one or set defaultHouseholdId on your profile.'
            : `Household ${ref} was not found.`,
        resource: 'Household',
      })
    }
    return next()
  }
}
