import type { ZodType } from 'zod'
import { catalogMutators, catalogQueries } from '../catalog/index.ts'
import { identityMutators, identityQueries } from '../identity/index.ts'
import { ledgerMutators, ledgerQueries } from '../ledger/index.ts'
import type { HouseholdContext } from '../mutator/context.ts'
import type { Mutator, Query } from '../mutator/define.ts'
import { createRegistry } from '../mutator/registry.ts'

type AllMutatorExports = typeof identityMutators & typeof catalogMutators & typeof ledgerMutators
type AllQueryExports = typeof catalogQueries &
  typeof ledgerQueries &
  Pick<typeof identityQueries, 'getHousehold' | 'listMembers'>

/** The household mutators a device may run and push, keyed by their export name. */
export type HouseholdMutators = {
  [K in keyof AllMutatorExports as AllMutatorExports[K] extends { kind: 'mutator'; level: 'household' }
    ? K
    : never]: AllMutatorExports[K]
}

/** The household queries a device may run on its replica, keyed by their export name. */
export type HouseholdQueries = {
  [K in keyof AllQueryExports as AllQueryExports[K] extends Query<ZodType, unknown, never>
    ? Parameters<AllQueryExports[K]['run']>[2] extends HouseholdContext
      ? K
      : never
    : never]: AllQueryExports[K]
}

type AnyMutator = Mutator<ZodType, unknown, HouseholdContext>
type AnyQuery = Query<ZodType, unknown, HouseholdContext>

/** Merges domain maps by export name, refusing a name two domains both export. */
function mergeByExportName(...domains: Record<string, unknown>[]): Record<string, unknown> {
  const merged: Record<string, unknown> = {}
  for (const domain of domains) {
    for (const [key, op] of Object.entries(domain)) {
      if (key in merged) throw new Error(`Two domains export an operation named ${key}`)
      merged[key] = op
    }
  }
  return merged
}

function isHouseholdMutator(op: unknown): boolean {
  return (op as AnyMutator | undefined)?.kind === 'mutator' && (op as AnyMutator).level === 'household'
}

/** Household mutators by export name (`createAccount`), what the client SDK exposes. */
export const householdMutators = Object.fromEntries(
  Object.entries(mergeByExportName(identityMutators, catalogMutators, ledgerMutators)).filter(([, op]) =>
    isHouseholdMutator(op),
  ),
) as unknown as HouseholdMutators

/** Household queries by export name (`listAccounts`). */
export const householdQueries = mergeByExportName(catalogQueries, ledgerQueries, {
  getHousehold: identityQueries.getHousehold,
  listMembers: identityQueries.listMembers,
}) as unknown as HouseholdQueries

/**
 * Every household mutator by its wire name (`accounts.create`): what a device pushes and the
 * server runs. Built once; a duplicate name fails at start-up.
 */
export const syncMutators: Map<string, AnyMutator> = createRegistry(
  householdMutators as unknown as Record<string, AnyMutator>,
)

/** Every household query by its name (`accounts.list`). */
export const syncQueries: Map<string, AnyQuery> = createRegistry(
  householdQueries as unknown as Record<string, AnyQuery>,
)
