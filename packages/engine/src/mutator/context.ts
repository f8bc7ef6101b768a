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
  /** How the member acts, for the activity's actor (a key, a session, a job, the assistant). */
  via?: ActorVia
}

/**
 * The credential or agent an operation came through, besides the member: which API key or
 * sign-in session, which job, or the assistant (the member being whoever confirmed). A device
 * push needs none: its `clientId` names the device. Add a kind here and a label for it in
 * `actorLabel` (activity/model.ts).
 */
export type ActorVia =
  | { kind: 'key'; keyId: string }
  | { kind: 'session'; sessionId: string }
  | { kind: 'job'; job: string }
  | { kind: 'assistant'; actionId: string }
  | { kind: 'cli' }

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
