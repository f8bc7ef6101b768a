import { sql } from 'kysely'
import { z } from 'zod'
import { invalid } from '../errors.ts'
import { convertCentsExact } from '../ledger/exchange-rates/model.ts'
import { RefIdSchema } from '../ledger/schema.ts'
import { defineQuery } from '../mutator/define.ts'
import { ratesToBase } from '../reports/rates.ts'
import { reportCost } from '../reports/schema.ts'
import { DateSchema } from '../shared/schema.ts'

const PeriodShape = {
  fromDate: DateSchema,
  toDate: DateSchema,
}

const SpendingArgsSchema = z.strictObject({
  ...PeriodShape,
  /** How to group the period's rows; `none` gives the totals alone. */
  groupBy: z.enum(['category', 'payee', 'tag', 'none']).default('category'),
  categoryId: RefIdSchema.optional(),
  payeeId: RefIdSchema.optional(),
  tagId: RefIdSchema.optional(),
  accountId: RefIdSchema.optional(),
})

const LargestArgsSchema = z.strictObject({
  ...PeriodShape,
  limit: z.number().int().min(1).max(50).default(5),
})

/** One group of a spending report. */
export interface SpendingGroup {
  id: string | null
  name: string
  /** Money out less refunds in the group, positive for spending. */
  spentCents: string
  /** The same outside income categories: the group's share of the report's `netSpentCents`. */
  netSpentCents: string
  count: number
}

/** Spending in a period: totals, and the groups asked for, largest first. */
export interface SpendingReport {
  /** Every figure is in this currency, converted at the household's rates. */
  baseCurrency: string
  fromDate: string
  toDate: string
  /** Money out, gross: refunds are not taken off. */
  spentCents: string
  /** Money in, gross: income, refunds and any other inflow. */
  incomeCents: string
  /**
   * Money out less refunds, on rows outside income categories (a refund lowers spending; money
   * in an income category is income, not a refund). The sum of the groups' `netSpentCents` for
   * `groupBy` category or payee.
   */
  netSpentCents: string
  /** Money in less money out on rows in income categories: what was earned. */
  earnedCents: string
  count: number
  groups: SpendingGroup[]
  /** Currencies whose rows were left out: no rate converts them to the base currency. */
  unconvertedCurrencies: string[]
}

function checkPeriod(args: { fromDate: string; toDate: string }): void {
  if (args.fromDate > args.toDate) {
    throw invalid('VALIDATION_FAILED', 'The period ends before it starts.', [
      { path: 'toDate', message: 'Must be on or after fromDate.' },
    ])
  }
}

/**
 * Spending over a period on budget accounts, split rows counted by their parts, transfers and
 * system rows (opening balances, adjustments) left out. Each group's figure is its money out less
 * its refunds; totals are money out and money in (gross), spending net of refunds outside income
 * categories, and what income categories earned; all in the base currency.
 */
export const spendingReport = defineQuery({
  audience: 'device',
  description: 'Spending in a period by category, payee or tag (money out less refunds), with totals.',
  scope: 'read:transactions',
  cost: reportCost,
  args: SpendingArgsSchema,
  async run(db, args, ctx): Promise<SpendingReport> {
    checkPeriod(args)
    const tagJoin = args.groupBy === 'tag' || args.tagId
    const filters = [
      args.categoryId ? sql`and l.category_id = ${args.categoryId}` : sql``,
      args.payeeId ? sql`and l.payee_id = ${args.payeeId}` : sql``,
      args.tagId ? sql`and tt.tag_id = ${args.tagId}` : sql``,
    ]
    const key =
      args.groupBy === 'category'
        ? sql`l.category_id`
        : args.groupBy === 'payee'
          ? sql`l.payee_id`
          : args.groupBy === 'tag'
            ? sql`tt.tag_id`
            : sql`null::text`
    const { base, rates } = await ratesToBase(db, ctx.householdId)

    const { rows } = await sql<{
      key: string | null
      currency: string
      net: string
      out_: string
      in_: string
      spend_: string
      earn_: string
      n: string
    }>`
      with income as (
        select c.id from categories c
        join category_groups g on g.household_id = c.household_id and g.id = c.group_id and g.is_income
        where c.household_id = ${ctx.householdId}
      ),
      lines as (
        select t.id, a.currency, coalesce(s.category_id, t.category_id) as category_id,
          coalesce(s.payee_id, t.payee_id) as payee_id, coalesce(s.amount_cents, t.amount_cents) as amount,
          coalesce(coalesce(s.category_id, t.category_id) in (select id from income), false) as income
        from transactions t
        join accounts a on a.household_id = t.household_id and a.id = t.account_id and a.type in ('cash', 'credit')
        left join transaction_splits s on s.household_id = t.household_id and s.transaction_id = t.id
        where t.household_id = ${ctx.householdId} and t.date between ${args.fromDate} and ${args.toDate}
          and t.deleted_at is null and t.merged_into_id is null and t.transfer_group_id is null
          and t.kind = 'normal'
          ${args.categoryId ? sql`and (t.category_id = ${args.categoryId} or s.category_id = ${args.categoryId})` : sql``}
          ${args.payeeId ? sql`and (t.payee_id = ${args.payeeId} or s.payee_id = ${args.payeeId})` : sql``}
          ${args.accountId ? sql`and t.account_id = ${args.accountId}` : sql``}
      )
      select ${key} as key, l.currency, -sum(l.amount) as net,
        coalesce(-sum(l.amount) filter (where l.amount < 0), 0) as out_,
        coalesce(sum(l.amount) filter (where l.amount > 0), 0) as in_,
        coalesce(-sum(l.amount) filter (where not l.income), 0) as spend_,
        coalesce(sum(l.amount) filter (where l.income), 0) as earn_, count(*) as n
      from lines l
      ${tagJoin ? sql`join transaction_tags tt on tt.household_id = ${ctx.householdId} and tt.transaction_id = l.id` : sql``}
      where true ${filters[0]!} ${filters[1]!} ${filters[2]!}
      group by 1, 2`.execute(db)
    // Each group's total per currency is converted and rounded once; a currency without a rate to
    // the base currency is left out and named, never guessed.
    const unconverted = new Set<string>()
    const byKey = new Map<
      string | null,
      { net: bigint; out: bigint; in: bigint; spend: bigint; earn: bigint; n: number }
    >()
    for (const r of rows) {
      const rate = rates.get(r.currency)
      if (rate === undefined) {
        unconverted.add(r.currency)
        continue
      }
      const group = byKey.get(r.key) ?? { net: 0n, out: 0n, in: 0n, spend: 0n, earn: 0n, n: 0 }
      group.net += convertCentsExact(BigInt(r.net), rate)
      group.out += convertCentsExact(BigInt(r.out_), rate)
      group.in += convertCentsExact(BigInt(r.in_), rate)
      group.spend += convertCentsExact(BigInt(r.spend_), rate)
      group.earn += convertCentsExact(BigInt(r.earn_), rate)
      group.n += Number(r.n)
      byKey.set(r.key, group)
    }
    const names = await namesOf(db, ctx.householdId, args.groupBy, [...byKey.keys()])
    const all = [...byKey.values()]
    const groups =
      args.groupBy === 'none'
        ? []
        : [...byKey]
            .map(([key, g]) => ({
              id: key,
              name: key
                ? (names.get(key) ?? key)
                : args.groupBy === 'category'
                  ? 'Uncategorized'
                  : `No ${args.groupBy}`,
              spentCents: String(g.net),
              netSpentCents: String(g.spend),
              count: g.n,
            }))
            .sort((a, b) => {
              const d = BigInt(b.spentCents) - BigInt(a.spentCents)
              return d > 0n ? 1 : d < 0n ? -1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0
            })
    return {
      baseCurrency: base,
      fromDate: args.fromDate,
      toDate: args.toDate,
      spentCents: String(all.reduce((sum, g) => sum + g.out, 0n)),
      incomeCents: String(all.reduce((sum, g) => sum + g.in, 0n)),
      netSpentCents: String(all.reduce((sum, g) => sum + g.spend, 0n)),
      earnedCents: String(all.reduce((sum, g) => sum + g.earn, 0n)),
      count: all.reduce((sum, g) => sum + g.n, 0),
      groups,
      unconvertedCurrencies: [...unconverted].sort(),
    }
  },
})

async function namesOf(
  db: Parameters<(typeof spendingReport)['run']>[0],
  householdId: string,
  groupBy: string,
  ids: (string | null)[],
): Promise<Map<string, string>> {
  const wanted = ids.filter((id): id is string => id !== null)
  const table =
    groupBy === 'category' ? 'categories' : groupBy === 'payee' ? 'payees' : groupBy === 'tag' ? 'tags' : null
  if (!table || wanted.length === 0) return new Map()
  const rows = await db
    .selectFrom(table)
    .select(['id', 'name'])
    .where('household_id', '=', householdId)
    .where('id', 'in', wanted)
    .execute()
  return new Map(rows.map((r) => [r.id, r.name]))
}

/** One row of the largest-transactions report. */
export interface LargeTransaction {
  id: string
  date: string
  amountCents: string
  payee: string | null
  category: string | null
  account: string
  memo: string | null
}

/** The largest money-out rows of a period, biggest first, transfers and system rows left out. */
export const largestTransactions = defineQuery({
  audience: 'device',
  description: 'The largest money-out transactions of a period, biggest first.',
  scope: 'read:transactions',
  cost: reportCost,
  args: LargestArgsSchema,
  async run(db, args, ctx): Promise<{ items: LargeTransaction[] }> {
    checkPeriod(args)
    const rows = await db
      .selectFrom('transactions as t')
      .innerJoin('accounts as a', (j) =>
        j.onRef('a.household_id', '=', 't.household_id').onRef('a.id', '=', 't.account_id'),
      )
      .leftJoin('payees as p', (j) =>
        j.onRef('p.household_id', '=', 't.household_id').onRef('p.id', '=', 't.payee_id'),
      )
      .leftJoin('categories as c', (j) =>
        j.onRef('c.household_id', '=', 't.household_id').onRef('c.id', '=', 't.category_id'),
      )
      .select([
        't.id',
        't.date',
        't.amount_cents',
        'p.name as payee',
        'c.name as category',
        'a.name as account',
        't.memo',
      ])
      .where('t.household_id', '=', ctx.householdId)
      .where('t.date', '>=', args.fromDate)
      .where('t.date', '<=', args.toDate)
      .where('t.deleted_at', 'is', null)
      .where('t.merged_into_id', 'is', null)
      .where('t.transfer_group_id', 'is', null)
      .where('t.kind', '=', 'normal')
      .where('t.amount_cents', '<', 0)
      .orderBy('t.amount_cents')
      .orderBy('t.id')
      .limit(args.limit)
      .execute()
    return {
      items: rows.map((r) => ({
        id: r.id,
        date: r.date,
        amountCents: String(r.amount_cents),
        payee: r.payee,
        category: r.category,
        account: r.account,
        memo: r.memo,
      })),
    }
  },
})
