import type { Kysely } from 'kysely'
import type { Database } from '../database.ts'

/** The household's base currency and its rates to it, the base itself at `'1'`. */
export async function ratesToBase(
  db: Kysely<Database>,
  householdId: string,
): Promise<{ base: string; rates: Map<string, string> }> {
  const household = await db
    .selectFrom('households')
    .select('base_currency')
    .where('id', '=', householdId)
    .executeTakeFirstOrThrow()
  const base = household.base_currency
  const rows = await db
    .selectFrom('exchange_rates')
    .select(['from_currency', 'rate'])
    .where('household_id', '=', householdId)
    .where('to_currency', '=', base)
    .execute()
  const rates = new Map(rows.map((r) => [r.from_currency, r.rate]))
  rates.set(base, '1')
  return { base, rates }
}
