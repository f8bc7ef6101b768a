import type { Transaction } from 'kysely'
import type { Database } from '../database.ts'
import type { MutationContext } from '../mutator/context.ts'
import type { Household } from './model.ts'

/**
 * What a feature domain gives every new household (default flags today; budgets, notification
 * defaults and rules later). It runs inside `households.create`'s transaction, after the
 * household and its owner's membership exist, so a throw refuses the creation whole. Like a
 * mutator it must be deterministic: ids derive from the household id and times from `ctx.now`.
 */
export interface HouseholdSeeder {
  /** `<domain>.<what>`, for errors and docs. */
  readonly name: string
  seed(tx: Transaction<Database>, household: Household, ctx: MutationContext): Promise<void>
}

/** The points where other domains plug into identity; the engine root fills them. */
export interface IdentityHooks {
  /** Run in order on every new household. */
  householdSeeders: readonly HouseholdSeeder[]
}
