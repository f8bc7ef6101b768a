import type { HouseholdContext, Role, Scope } from '@hearth/engine'
import type { Logger } from 'pino'

/** The authenticated caller of a request. */
export interface Caller {
  userId: string
  keyId: string
  scopes: Scope[]
}

/** Hono's typed context variables, set by the platform middleware. */
export interface AppEnv {
  Variables: {
    requestId: string
    logger: Logger
    caller: Caller
    household: { householdId: string; role: Role }
  }
}

/** The engine context for a household route: caller plus resolved membership. */
export function householdContext(vars: AppEnv['Variables']): HouseholdContext {
  return {
    userId: vars.caller.userId,
    scopes: vars.caller.scopes,
    now: new Date(),
    householdId: vars.household.householdId,
    role: vars.household.role,
  }
}

/** The engine context for a route about the caller's own user. */
export function actorContext(vars: AppEnv['Variables']) {
  return { userId: vars.caller.userId, scopes: vars.caller.scopes, now: new Date() }
}
