import type { Kysely, Transaction } from 'kysely'
import type { z } from 'zod'
import type { Scope } from '../scopes.ts'
import type { Database } from '../store/database.ts'
import type { ActorContext, HouseholdContext, MutationContext } from './context.ts'

/** A named, validated change; the only way any row changes, for every caller alike. */
export interface Mutator<
  S extends z.ZodType = z.ZodType,
  R = unknown,
  C extends ActorContext = ActorContext,
> {
  kind: 'mutator'
  name: string
  /** Household mutators run inside one household's clock; user mutators act on the caller alone. */
  level: C extends HouseholdContext ? 'household' : 'user'
  scope: Scope | null
  ownerOnly: boolean
  args: S
  run(tx: Transaction<Database>, args: z.output<S>, ctx: MutationContext<C>): Promise<R>
}

/** A named, validated read with the same context as a mutator. */
export interface Query<S extends z.ZodType = z.ZodType, R = unknown, C extends ActorContext = ActorContext> {
  kind: 'query'
  name: string
  scope: Scope | null
  args: S
  run(db: Kysely<Database>, args: z.output<S>, ctx: C): Promise<R>
}

interface Definition<S extends z.ZodType, R, Ctx> {
  name: string
  /** The scope a caller needs; null only for operations every signed-in caller may do. */
  scope: Scope | null
  ownerOnly?: boolean
  args: S
  run(tx: Transaction<Database>, args: z.output<S>, ctx: Ctx): Promise<R>
}

/** Declares a household mutator: it runs in one transaction that bumps the household's version. */
export function defineMutator<S extends z.ZodType, R>(
  def: Definition<S, R, MutationContext<HouseholdContext>>,
): Mutator<S, R, HouseholdContext> {
  return { kind: 'mutator', level: 'household', ownerOnly: def.ownerOnly ?? false, ...def }
}

/** Declares a mutator that acts on the caller's own user (profile, keys), outside any household. */
export function defineUserMutator<S extends z.ZodType, R>(
  def: Definition<S, R, MutationContext<ActorContext>>,
): Mutator<S, R, ActorContext> {
  return { kind: 'mutator', level: 'user', ownerOnly: false, ...def } as Mutator<S, R, ActorContext>
}

/** Declares a read. */
export function defineQuery<S extends z.ZodType, R, C extends ActorContext = HouseholdContext>(def: {
  name: string
  scope: Scope | null
  args: S
  run(db: Kysely<Database>, args: z.output<S>, ctx: C): Promise<R>
}): Query<S, R, C> {
  return { kind: 'query', ...def }
}
