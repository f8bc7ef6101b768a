import { sql } from 'kysely'
import { z } from 'zod'
import { callerToday } from '../ledger/local-day.ts'
import { defineQuery } from '../mutator/define.ts'
import { DateSchema } from '../shared/schema.ts'
import { AGE_OF_MONEY_WINDOW, ageOfMoney, type CashFlow, roundHalfUp } from './age-of-money.ts'

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

interface DayRow {
  date: string
  inflow: string | null
  outflow: string | null
}

interface OutflowRow {
  id: string
  date: string
  amount: string
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
 * is an outflow; money coming back from one is an inflow.
 */
export const getAgeOfMoney = defineQuery({
  audience: 'device',
  description:
    'The mean age in days of the money spent by the last ten outflows from on-budget cash accounts, first in first out; null until ten exist.',
  scope: 'read:budgets',
  args: AgeOfMoneyArgsSchema,
  async run(db, args, ctx): Promise<AgeOfMoneyResult> {
    const asOf = args.asOf ?? (await callerToday(db, ctx))
    const counted = countedCashFlows(ctx.householdId, asOf)
    const [window, days] = await Promise.all([
      sql<OutflowRow>`
        with counted as (${counted})
        select id, date, amount_cents::text as amount from counted where amount_cents < 0
        order by date desc, id desc limit ${AGE_OF_MONEY_WINDOW}`.execute(db),
      sql<DayRow>`
        with counted as (${counted})
        select date,
          sum(amount_cents) filter (where amount_cents > 0)::text as inflow,
          sum(amount_cents) filter (where amount_cents < 0)::text as outflow
        from counted group by date order by date`.execute(db),
    ])
    if (window.rows.length < AGE_OF_MONEY_WINDOW) return { days: null, asOf, outflows: [] }

    // Each day is one inflow bucket and one outflow of everything spent that day outside the
    // window; the window's outflows follow one by one. Draining a day's outflows together
    // takes the same cents from the same buckets as draining them in turn.
    const scored = window.rows.slice().reverse()
    const byDay = new Map<string, OutflowRow[]>()
    for (const row of scored) byDay.set(row.date, [...(byDay.get(row.date) ?? []), row])
    const flows: CashFlow[] = []
    for (const day of days.rows) {
      if (day.inflow) flows.push({ date: day.date, amountCents: BigInt(day.inflow) })
      const mine = byDay.get(day.date) ?? []
      const rest = BigInt(day.outflow ?? 0) - mine.reduce((sum, o) => sum + BigInt(o.amount), 0n)
      if (rest !== 0n) flows.push({ date: day.date, amountCents: rest })
      for (const o of mine) flows.push({ id: o.id, date: o.date, amountCents: BigInt(o.amount) })
    }
    const result = ageOfMoney(flows)
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
