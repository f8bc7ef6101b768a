import type { Kysely, Transaction } from 'kysely'
import type { z } from 'zod'
import type { Database } from '../database.ts'
import type { Scope } from '../scopes.ts'
import type { ActorContext, HouseholdContext, MutationContext } from './context.ts'

/**
 * Who may run an operation. `device`: a replica runs it locally and pushes it; `server`: only the
 * server runs it (secrets, membership, anything not deterministic from state and args); `system`:
 * only jobs and the operator's CLI, acting as the system actor, never a REST caller or a device.
 */
export type Audience = 'device' | 'server' | 'system'

/**
 * What a call costs the server: `cheap` (a row, a page, one write), `read-heavy` (a scan of a
 * household's rows), `expensive` (a bank file, a back-fill of every row, years of a report).
 * REST runs an expensive call only a few at a time per member and per household, and pauses it
 * while cheaper requests wait (docs/api/README.md, Cost limits).
 */
export type CostClass = 'cheap' | 'read-heavy' | 'expensive'

/** An operation's cost: one class, or one read from its raw arguments (a report's range of months). */
export type Cost = CostClass | ((args: Record<string, unknown>) => CostClass)

/** What every operation declares once; routes, sync, the SDK, docs and AI tools read it from here. */
interface OperationInfo {
  /**
   * The operation's registry path (`tags.create`): the one name on the wire, in the SDK, in
   * rejections, as the OpenAPI operationId and as the AI tool name. Set by `createRegistry`.
   */
  readonly name: string
  /** The scope a caller needs; null only for operations every signed-in caller may do. */
  scope: Scope | null
  ownerOnly: boolean
  audience: Audience
  /** One sentence saying what it does; it becomes the OpenAPI summary and the AI tool description. */
  description: string
  /** What a call costs the server; `cheap` unless declared. */
  cost: Cost
}

/** A named, validated change; the only way any row changes, for every caller alike. */
export interface Mutator<S extends z.ZodType = z.ZodType, R = unknown, C extends ActorContext = ActorContext>
  extends OperationInfo {
  kind: 'mutator'
  /** Household mutators run inside one household's clock; user mutators act on the caller alone. */
  level: C extends HouseholdContext ? 'household' : 'user'
  args: S
  run(tx: Transaction<Database>, args: z.output<S>, ctx: MutationContext<C>): Promise<R>
}

/** A named, validated read with the same context as a mutator. */
export interface Query<S extends z.ZodType = z.ZodType, R = unknown, C extends ActorContext = ActorContext>
  extends OperationInfo {
  kind: 'query'
  level: C extends HouseholdContext ? 'household' : 'user'
  args: S
  run(db: Kysely<Database>, args: z.output<S>, ctx: C): Promise<R>
}

/** Any mutator or query, whatever its arguments, result and context. */
// biome-ignore lint/suspicious/noExplicitAny: the registry holds operations of every shape.
export type Operation = Mutator<any, any, any> | Query<any, any, any>

interface Definition<S extends z.ZodType, R, Ctx, Db, A extends Audience> {
  scope: Scope | null
  ownerOnly?: boolean
  audience: A
  description: string
  cost?: Cost
  args: S
  run(db: Db, args: z.output<S>, ctx: Ctx): Promise<R>
}

/** Declares a household mutator: it runs in one transaction that bumps the household's version. */
export function defineMutator<S extends z.ZodType, R, A extends Audience>(
  def: Definition<S, R, MutationContext<HouseholdContext>, Transaction<Database>, A>,
): Mutator<S, R, HouseholdContext> & { audience: A } {
  return { kind: 'mutator', level: 'household', name: '', ownerOnly: false, cost: 'cheap', ...def }
}

/** Declares a mutator that acts on the caller's own user (profile, keys), outside any household. */
export function defineUserMutator<S extends z.ZodType, R, A extends Audience>(
  def: Definition<S, R, MutationContext<ActorContext>, Transaction<Database>, A>,
): Mutator<S, R, ActorContext> & { audience: A } {
  return { kind: 'mutator', level: 'user', name: '', ownerOnly: false, cost: 'cheap', ...def } as Mutator<
    S,
    R,
    ActorContext
  > & { audience: A }
}

/** Declares a read of one household. */
export function defineQuery<S extends z.ZodType, R, A extends Audience>(
  def: Definition<S, R, HouseholdContext, Kysely<Database>, A>,
): Query<S, R, HouseholdContext> & { audience: A } {
  return { kind: 'query', level: 'household', name: '', ownerOnly: false, cost: 'cheap', ...def }
}

/** Declares a read about the caller's own user, outside any household. */
export function defineUserQuery<S extends z.ZodType, R, A extends Audience>(
  def: Definition<S, R, ActorContext, Kysely<Database>, A>,
): Query<S, R, ActorContext> & { audience: A } {
  return { kind: 'query', level: 'user', name: '', ownerOnly: false, cost: 'cheap', ...def } as Query<
    S,
    R,
    ActorContext
  > & {
    audience: A
  }
}

/** The cost class of one call of `operation` with these raw arguments. */
export function costOf(operation: Operation, args: Record<string, unknown>): CostClass {
  return typeof operation.cost === 'function' ? operation.cost(args) : operation.cost
}
