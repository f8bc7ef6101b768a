import type { Transaction } from 'kysely'
import type { Database } from '../database.ts'
import type { HouseholdSeeder } from '../identity/household-seeders.ts'
import { DEFAULT_FLAGS, deriveUlid, type Flag, toFlag } from './model.ts'

/**
 * Gives a new household the default flags (Red, Orange, Yellow, Green, Blue, Purple). Ids come
 * from `ids` when given (one per default flag, in order), else are derived from the household
 * id, so replaying household creation anywhere makes the same rows.
 */
export async function seedDefaultFlags(
  tx: Transaction<Database>,
  householdId: string,
  now: Date,
  ids?: readonly string[],
): Promise<Flag[]> {
  if (ids && ids.length !== DEFAULT_FLAGS.length) {
    throw new Error(`seedDefaultFlags needs ${DEFAULT_FLAGS.length} ids, got ${ids.length}.`)
  }
  const rows = await tx
    .insertInto('flags')
    .values(
      DEFAULT_FLAGS.map((flag, position) => ({
        household_id: householdId,
        id: ids?.[position] ?? deriveUlid(householdId, `flag:${flag.key}`),
        name: flag.name,
        color: flag.color,
        position,
        created_at: now,
        updated_at: now,
      })),
    )
    .onConflict((oc) => oc.columns(['household_id', 'id']).doNothing())
    .returningAll()
    .execute()
  return rows.sort((a, b) => a.position - b.position).map(toFlag)
}

/** Seeds the default flags on every new household, with ids derived from the household id. */
export const defaultFlagsSeeder: HouseholdSeeder = {
  name: 'catalog.defaultFlags',
  async seed(tx, household, ctx) {
    await seedDefaultFlags(tx, household.id, ctx.now)
  },
}
