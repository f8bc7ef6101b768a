import type { CredentialKind, HouseholdContext, Role, Scope } from '@hearth/engine'
import type { Logger } from 'pino'

/** The authenticated caller of a request. */
export interface Caller {
  userId: string
  keyId: string
  scopes: Scope[]
  /** A program's key, a person's session or device; `viaCookie` when the session came in its cookie. */
  kind?: CredentialKind
  viaCookie?: boolean
}

/** Hono's typed context variables, set by the platform middleware. */
export interface AppEnv {
  Variables: {
    requestId: string
    /** The client's address: the socket's peer, or what a trusted proxy forwarded (client-address.ts). */
    clientAddress: string
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
    via: { kind: 'key', keyId: vars.caller.keyId },
  }
}

/** The engine context for a route about the caller's own user. */
export function actorContext(vars: AppEnv['Variables']) {
  return { userId: vars.caller.userId, scopes: vars.caller.scopes, now: new Date() }
}
