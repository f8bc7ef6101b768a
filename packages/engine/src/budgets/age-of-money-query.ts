import { type Kysely, sql } from 'kysely'
import { z } from 'zod'
import type { Database } from '../database.ts'
import { callerToday } from '../ledger/local-day.ts'
import { addDays } from '../ledger/model.ts'
import { defineQuery } from '../mutator/define.ts'
import { readKeptMonths } from '../reports/closings.ts'
import { DateSchema } from '../shared/schema.ts'
import {
  AGE_OF_MONEY_WINDOW,
  type AgeOfMoneyPointState,
  type AgeOfMoneyState,
  ageOfMoneyFigure,
  ageOfMoneyRoll,
  type CashFlow,
  roundHalfUp,
} from './age-of-money.ts'
import { inSnapshot } from './closings.ts'
import { lastDayOf, monthOf } from './month.ts'

export const AgeOfMoneyArgsSchema = z.strictObject({
  /** The last day whose rows count; omitted: the caller's local today. */
  asOf: DateSchema.optional(),
})
export type AgeOfMoneyArgs = z.output<typeof AgeOfMoneyArgsSchema>

/** One of the outflows the figure averages. */
export interface AgeOfMoneyOutflow {
  transactionId: string
  date: string
  amountCents: string
  /** The age of the money it spent, rounded to a whole day (the mean uses the exact ages). */
  ageDays: number
}

/** The age of money as the API shows it. */
export interface AgeOfMoneyResult {
  /** The mean age in days of the last ten outflows, rounded, halves up; null before ten exist. */
  days: number | null
  asOf: string
  /** The outflows averaged, oldest first; empty while `days` is null. */
  outflows: AgeOfMoneyOutflow[]
}

/**
 * The rows the age of money counts, dated up to `asOf` (`id`, `date`, `amount_cents`): every live
 * row of the household's cash accounts (on budget, not credit) in its base currency, except the
 * legs of a transfer between two such accounts (and after `after`, when given). `budgets.ageOfMoney`
 * and the age-of-money report read them through this one statement.
 */
export function countedCashFlows(householdId: string, asOf: string, after?: string) {
  return sql<{ id: string; date: string; amount_cents: string }>`
    select t.id, t.date, t.amount_cents
    from transactions t
    join accounts a on a.household_id = t.household_id and a.id = t.account_id
    join households h on h.id = t.household_id
    where t.household_id = ${householdId}
      and a.type = 'cash' and a.currency = h.base_currency and a.deleted_at is null
      and t.deleted_at is null and t.merged_into_id is null
      and t.amount_cents <> 0 and t.date <= ${asOf}::date ${after ? sql`and t.date > ${after}::date` : sql``}
      and not exists (
        select 1 from transactions o
        join accounts oa on oa.household_id = o.household_id and oa.id = o.account_id
        where o.household_id = t.household_id and o.transfer_group_id = t.transfer_group_id
          and o.id <> t.id and o.deleted_at is null and o.merged_into_id is null
          and oa.type = 'cash' and oa.currency = h.base_currency and oa.deleted_at is null
      )`
}

/**
 * YNAB's age of money over the household's cash accounts (on budget, not credit) in its base
 * currency: every live row dated up to `asOf` is an inflow bucket or an outflow, except the legs
 * of a transfer between two such accounts. A card payment or a transfer to an off-budget account
 * is an outflow; money coming back from one is an inflow. It goes on from the latest month the
 * age-of-money report kept before `asOf`'s month (docs/api/reports.md, Kept months), reading only
 * the rows after it, as the report does.
 */
export const getAgeOfMoney = defineQuery({
  audience: 'device',
  description:
    'The mean age in days of the money spent by the last ten outflows from on-budget cash accounts, first in first out; null until ten exist.',
  scope: 'read:budgets',
  args: AgeOfMoneyArgsSchema,
  async run(db, args, ctx): Promise<AgeOfMoneyResult> {
    const asOf = args.asOf ?? (await callerToday(db, ctx))
    const read = await readAgeOfMoney(db, ctx.householdId, [monthOf(asOf)], [asOf], monthOf(asOf))
    const result = read.points[0]?.figure
    if (!result) return { days: null, asOf, outflows: [] }
    return {
      days: result.days,
      asOf,
      outflows: result.outflows.map((o) => ({
        transactionId: o.id as string,
        date: o.date,
        amountCents: String(o.amountCents),
        ageDays: roundHalfUp(o.ageNumerator, o.ageDenominator),
      })),
    }
  },
})

/** What an age-of-money read found (`readAgeOfMoney`). */
export interface AgeOfMoneyRead {
  /** Each point's figure and where the roll stood there: the kept months' first, then those rolled. */
  points: AgeOfMoneyPointState[]
  /** How many of `points` came from kept months. */
  keptCount: number
  /** The household's clock when read, to keep the months rolled through against (`keepMonths`). */
  version: string | null
}

/**
 * The age of money at each of `points` (ascending days; `months[i]` is the month of `points[i]`),
 * in one repeatable-read snapshot: the points of months the report kept (before `until`, see
 * `readKeptMonths`) as kept, then a roll from the latest month kept before the first other one
 * (none: from the first row) over only the rows after it.
 */
export function readAgeOfMoney(
  db: Kysely<Database>,
  householdId: string,
  months: readonly string[],
  points: readonly string[],
  until: string,
): Promise<AgeOfMoneyRead> {
  return inSnapshot(db, async (tx) => {
    const kept = await readKeptMonths(tx, householdId, 'ageOfMoney', months, until)
    const rest = points.slice(kept.kept.length)
    const start = kept.start ? parseAgeState(kept.start.state) : undefined
    const flows = rest.length
      ? await ageOfMoneyFlows(tx, householdId, rest, kept.start ? lastDayOf(kept.start.month) : undefined)
      : []
    const keptPoints = kept.kept.map((text) => {
      const state = parseAgeState(text)
      return { figure: ageOfMoneyFigure(state), state }
    })
    return {
      points: [...keptPoints, ...ageOfMoneyRoll(flows, rest, AGE_OF_MONEY_WINDOW, start)],
      keptCount: kept.kept.length,
      version: kept.version,
    }
  })
}

/**
 * The cash flows `budgets.ageOfMoney` counts up to the last of `points` (ascending days), read as
 * few rows as give `ageOfMoneySeries` the same answer at every point. A point averages the last
 * ten outflows dated up to it, and an outflow is among those of some point exactly when it is
 * among the last ten of its own bucket (the days after the point before, up to its own point):
 * those come on their own, with their ids. Every other outflow is drained but never averaged, and
 * on one day inflows come before outflows, so a day's other outflows (all before its averaged
 * ones) drain the buckets as their sum does, and come as one; a day's inflows, one bucket in the
 * series, come as one too. At 50,000 rows that is about a thousand rows (bench:reports). With
 * `after`, only the flows dated after that day, for a roll that goes on from its state there.
 */
export async function ageOfMoneyFlows(
  db: Kysely<Database>,
  householdId: string,
  points: readonly string[],
  after?: string,
): Promise<CashFlow[]> {
  const afterPoints = points.map((p) => addDays(p, 1))
  const { rows } = await sql<{ id: string | null; date: string; amount: string }>`
    with flows as (${countedCashFlows(householdId, points.at(-1)!, after)}),
    marked as (
      select id, date, amount_cents, amount_cents > 0 as inflow,
        amount_cents < 0 and count(*) filter (where amount_cents < 0) over (
          partition by width_bucket(date, ${afterPoints}::date[]) order by date desc, id desc
        ) <= ${AGE_OF_MONEY_WINDOW} as averaged
      from flows
    )
    select case when averaged then id end as id, date::text as date, sum(amount_cents)::text as amount
    from marked
    group by date, inflow, averaged, case when averaged then id end
    order by date, inflow desc, averaged, id`.execute(db)
  return rows.map((r) => ({
    ...(r.id !== null && { id: r.id }),
    date: r.date,
    amountCents: BigInt(r.amount),
  }))
}

/** How an age-of-money state is kept: buckets `[day, cents]`, outflows `[id, date, cents, age numerator, denominator]`. */
interface StoredAgeState {
  b: [number, string][]
  r: [string | null, string, string, string, string][]
}

export function ageStateText(state: AgeOfMoneyState): string {
  const stored: StoredAgeState = {
    b: state.buckets.map((b) => [b.day, String(b.left)]),
    r: state.recent.map((o) => [
      o.id ?? null,
      o.date,
      String(o.amountCents),
      String(o.ageNumerator),
      String(o.ageDenominator),
    ]),
  }
  return JSON.stringify(stored)
}

function parseAgeState(text: string): AgeOfMoneyState {
  const stored = JSON.parse(text) as StoredAgeState
  return {
    buckets: stored.b.map(([day, left]) => ({ day, left: BigInt(left) })),
    recent: stored.r.map(([id, date, amount, numerator, denominator]) => ({
      ...(id !== null && { id }),
      date,
      amountCents: BigInt(amount),
      ageNumerator: BigInt(numerator),
      ageDenominator: BigInt(denominator),
    })),
  }
}
