import { type Kysely, sql, type Transaction } from 'kysely'
import { householdUnchanged } from '../budgets/closings.ts'
import type { Database } from '../database.ts'

type Db = Kysely<Database> | Transaction<Database>

/** The reports that keep their months (migration 0051). */
export type KeptReportName = 'netWorth' | 'cashFlow' | 'ageOfMoney'

/** What a report's reader finds kept for its range of months. */
export interface KeptMonths {
  /** The household's clock when read: what this reader computes is kept only while it still reads so. */
  version: string | null
  /** The states kept for the range's first months, in order, up to the first month not kept. */
  kept: string[]
  /** The state kept for the month just before the first month not kept, when one is: where a roll starts. */
  start: { month: string; state: string } | null
}

/**
 * The states `report` keeps for `months` (ascending): those of the range's first months, and the
 * latest kept before the first month that is not, from which a reader rolls forward. Only months
 * before `until` count, when given: a reader whose today falls in a month that another member's
 * time zone has already left takes that month as not over.
 */
export async function readKeptMonths(
  db: Db,
  householdId: string,
  report: KeptReportName,
  months: readonly string[],
  until = '9999-99',
): Promise<KeptMonths> {
  const first = months[0] as string
  const { rows } = await sql<{ month: string | null; state: string | null; version: string | null }>`
    select k.month, k.state, (select version::text from household_clock where household_id = ${householdId}) as version
    from (select 1) one
    left join report_closings k on k.household_id = ${householdId} and k.report = ${report}
      and k.month <= ${months.at(-1) as string} and k.month < ${until}
      and k.month >= coalesce((select max(month) from report_closings
        where household_id = ${householdId} and report = ${report} and month < ${first}), ${first})
    order by k.month`.execute(db)
  const states = new Map(
    rows.filter((r) => r.month !== null).map((r) => [r.month as string, r.state as string]),
  )
  const kept: string[] = []
  for (const month of months) {
    const state = states.get(month)
    if (state === undefined) break
    kept.push(state)
  }
  const before = rows.find((r) => r.month !== null && r.month < first)
  const start =
    kept.length > 0
      ? { month: months[kept.length - 1] as string, state: kept.at(-1) as string }
      : before
        ? { month: before.month as string, state: before.state as string }
        : null
  return { version: rows[0]?.version ?? null, kept, start }
}

/**
 * Keeps the states a reader computed for months that are over, unless the household changed
 * since it read (`householdUnchanged`); a write that commits later forgets what it reaches through
 * the triggers. A state kept already stays as it is. Not inside a caller's transaction: what it
 * computed there may not be what the store holds once that commits.
 */
export async function keepMonths(
  db: Kysely<Database>,
  householdId: string,
  report: KeptReportName,
  version: string | null,
  states: ReadonlyMap<string, string>,
): Promise<void> {
  if (states.size === 0 || version === null || db.isTransaction) return
  const months = [...states.keys()]
  await sql`
    insert into report_closings (household_id, report, month, state)
    select ${householdId}, ${report}, k.month, k.state
    from unnest(${months}::text[], ${months.map((m) => states.get(m) as string)}::text[]) as k(month, state)
    where ${householdUnchanged(householdId, version)}
    on conflict (household_id, report, month) do nothing`.execute(db)
}
