import { type Kysely, sql, type Transaction } from 'kysely'
import type { Database } from '../database.ts'
import type { HouseholdContext } from '../mutator/context.ts'
import { localDate } from './model.ts'

/** The caller's local day at `ctx.now`: in the user's time zone, else the household's. */
export async function callerToday(
  db: Kysely<Database> | Transaction<Database>,
  ctx: HouseholdContext,
): Promise<string> {
  const row = await db
    .selectFrom('households as h')
    .select([
      'h.time_zone as householdZone',
      sql<string | null>`(select u.time_zone from users u where u.id = ${ctx.userId})`.as('userZone'),
    ])
    .where('h.id', '=', ctx.householdId)
    .executeTakeFirst()
  return localDate(ctx.now, row?.userZone ?? row?.householdZone ?? 'UTC')
}
