import { sql } from 'kysely'
import { invalid } from '../../errors.ts'
import { defineQuery } from '../../mutator/define.ts'
import { convertCentsExact } from '../exchange-rates/model.ts'
import { callerToday } from '../local-day.ts'
import { addDays, daysBetween, eachDay } from '../model.ts'
import { DAILY_SUMMARY_MAX_DAYS, DailySummaryArgsSchema, StalePendingCountArgsSchema } from './schema.ts'

/** One day of a daily summary, in the base currency; `count` includes rows in unconverted currencies. */
export interface SummaryDay {
  date: string
  moneyInCents: string
  moneyOutCents: string
  count: number
}

/** Face-value totals of one currency over the window, and the rate used to convert them (null: none). */
export interface CurrencyTotals {
  currency: string
  moneyInCents: string
  moneyOutCents: string
  count: number
  rate: string | null
  converted: boolean
}

export interface DailySummary {
  baseCurrency: string
  fromDate: string
  toDate: string
  days: SummaryDay[]
  totals: { moneyInCents: string; moneyOutCents: string; count: number }
  byCurrency: CurrencyTotals[]
  unconvertedCurrencies: string[]
}

/**
 * Money in, money out (as a positive magnitude) and row count per day over at most 92 days,
 * converted to the household's base currency with its exchange rates. Transfer legs and
 * system rows are not income or spending and are left out. A currency without a rate to the
 * base currency is listed as unconverted, never guessed.
 */
export const dailySummary = defineQuery({
  audience: 'device',
  description:
    "Money in, money out (as a positive magnitude) and row count per day over at most 92 days, converted to the household's base currency with its exchange rates.",
  scope: 'read:transactions',
  args: DailySummaryArgsSchema,
  async run(db, args, ctx): Promise<DailySummary> {
    const toDate = args.toDate ?? (args.fromDate ? addDays(args.fromDate, 29) : await callerToday(db, ctx))
    const fromDate = args.fromDate ?? addDays(toDate, -29)
    if (fromDate > toDate) {
      throw invalid('INVALID_DATE_RANGE', 'fromDate must not be after toDate.', [
        { path: 'fromDate', message: 'After toDate.' },
      ])
    }
    if (daysBetween(fromDate, toDate) + 1 > DAILY_SUMMARY_MAX_DAYS) {
      throw invalid('WINDOW_TOO_LARGE', `A daily summary covers at most ${DAILY_SUMMARY_MAX_DAYS} days.`, [
        { path: 'toDate', message: `At most ${DAILY_SUMMARY_MAX_DAYS} days after fromDate.` },
      ])
    }
    const household = await db
      .selectFrom('households')
      .select('base_currency')
      .where('id', '=', ctx.householdId)
      .executeTakeFirstOrThrow()
    const base = household.base_currency
    const rates = new Map(
      (
        await db
          .selectFrom('exchange_rates')
          .select(['from_currency', 'rate'])
          .where('household_id', '=', ctx.householdId)
          .where('to_currency', '=', base)
          .execute()
      ).map((r) => [r.from_currency, r.rate]),
    )
    rates.set(base, '1')
    const { rows } = await sql<{
      date: string
      currency: string
      money_in: number
      money_out: number
      count: number
    }>`
      select t.date, a.currency,
        coalesce(sum(t.amount_cents) filter (where t.amount_cents > 0), 0)::bigint as money_in,
        coalesce(-sum(t.amount_cents) filter (where t.amount_cents < 0), 0)::bigint as money_out,
        count(*)::bigint as count
      from transactions t
      join accounts a on a.household_id = t.household_id and a.id = t.account_id
      where t.household_id = ${ctx.householdId}
        and t.deleted_at is null and t.merged_into_id is null
        and t.kind = 'normal' and t.transfer_group_id is null
        and t.date between ${fromDate}::date and ${toDate}::date
        ${args.accountId ? sql`and t.account_id = ${args.accountId}` : sql``}
      group by t.date, a.currency`.execute(db)

    // Totals in exact integers: converted at a large rate, or summed over many days, they may pass 2^53.
    const days = new Map(eachDay(fromDate, toDate).map((d) => [d, { in: 0n, out: 0n, count: 0 }]))
    const currencies = new Map<string, { in: bigint; out: bigint; count: number }>()
    for (const r of rows) {
      const day = days.get(r.date)!
      day.count += r.count
      const face = currencies.get(r.currency) ?? { in: 0n, out: 0n, count: 0 }
      face.in += BigInt(r.money_in)
      face.out += BigInt(r.money_out)
      face.count += r.count
      currencies.set(r.currency, face)
      const rate = rates.get(r.currency)
      if (rate === undefined) continue
      // Each day's total per currency is converted and rounded once, in and out separately.
      day.in += convertCentsExact(BigInt(r.money_in), rate)
      day.out += convertCentsExact(BigInt(r.money_out), rate)
    }
    const dayList = [...days].map(([date, d]) => ({
      date,
      moneyInCents: String(d.in),
      moneyOutCents: String(d.out),
      count: d.count,
    }))
    const byCurrency = [...currencies]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([currency, t]) => ({
        currency,
        moneyInCents: String(t.in),
        moneyOutCents: String(t.out),
        count: t.count,
        rate: rates.get(currency) ?? null,
        converted: rates.has(currency),
      }))
    const sum = (key: 'in' | 'out') => [...days.values()].reduce((s, d) => s + d[key], 0n)
    return {
      baseCurrency: base,
      fromDate,
      toDate,
      days: dayList,
      totals: {
        moneyInCents: String(sum('in')),
        moneyOutCents: String(sum('out')),
        count: [...days.values()].reduce((s, d) => s + d.count, 0),
      },
      byCurrency,
      unconvertedCurrencies: byCurrency.filter((c) => !c.converted).map((c) => c.currency),
    }
  },
})

/**
 * Hand-entered rows still pending at least `days` days after their date (on the caller's
 * local day), on bank-fed accounts: the bank should have seen them by now.
 */
export const stalePendingCount = defineQuery({
  audience: 'device',
  description:
    "Hand-entered rows still pending at least `days` days after their date (on the caller's local day), on bank-fed accounts: the bank should have seen them by now.",
  scope: 'read:transactions',
  args: StalePendingCountArgsSchema,
  async run(db, args, ctx): Promise<{ count: number; days: number; asOf: string }> {
    const asOf = await callerToday(db, ctx)
    const { rows } = await sql<{ count: number }>`
      select count(*)::bigint as count
      from transactions t
      join accounts a on a.household_id = t.household_id and a.id = t.account_id
      where t.household_id = ${ctx.householdId}
        and t.deleted_at is null and t.merged_into_id is null
        and t.kind = 'normal' and t.source <> 'imported' and t.status = 'pending'
        and t.date <= ${addDays(asOf, -args.days)}::date
        and a.bank_fed and a.deleted_at is null
        ${args.accountId ? sql`and t.account_id = ${args.accountId}` : sql``}`.execute(db)
    return { count: rows[0]?.count ?? 0, days: args.days, asOf }
  },
})
