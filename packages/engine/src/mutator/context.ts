import type { EventData, EventType } from '../events/catalog.ts'
import type { Role, Scope } from '../scopes.ts'

/** Who is acting, with what rights, and when; every mutator and query receives it. */
export interface ActorContext {
  userId: string
  scopes: readonly Scope[]
  /** The instant the operation happens at; mutators never read the clock themselves. */
  now: Date
  /** Set when the operation arrived from a syncing device. */
  clientId?: string
  mutationId?: number
}

/** An actor inside one household, with the role their membership gives them. */
export interface HouseholdContext extends ActorContext {
  householdId: string
  role: Role
}

/**
 * The system actor: scheduled jobs and other periodic work, acting for no user and in no
 * household. `system`-audience operations are meant for it. It holds every scope, since no user
 * granted it any; each run gets its own `now`.
 */
export interface SystemContext {
  readonly actor: 'system'
  scopes: readonly Scope[]
  now: Date
}

/** A domain event a mutator emits; the wrapper writes it to the outbox in the same transaction. */
export interface DomainEvent {
  type: string
  data: Record<string, unknown>
}

/** What a mutator's body gets besides the transaction: the actor, plus a way to emit events. */
export type MutationContext<C extends ActorContext = HouseholdContext> = C & {
  /** Queues an event of the catalog (`events/catalog.ts`); its payload is checked at compile time. */
  emit<T extends EventType>(type: T, data: EventData<T>): void
}
