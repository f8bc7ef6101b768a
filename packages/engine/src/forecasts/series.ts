import { type Kysely, sql, type Transaction } from 'kysely'
import type { Database } from '../database.ts'

type Db = Kysely<Database> | Transaction<Database>

/**
 * Which payments are one series: the same category and payee, or without a payee the same memo,
 * or without either the same amount (spending cents). A known occurrence covers its series.
 */
export function seriesKey(
  categoryId: string | null,
  payeeId: string | null,
  memo: string | null,
  spentCents: number,
): string {
  const who = payeeId !== null ? `p:${payeeId}` : memo ? `m:${memo}` : `a:${spentCents}`
  return `${categoryId ?? ''}|${who}`
}

/** One series row's spending in one category (a split row's part in its own). */
export interface SeriesSpending {
  key: string
  categoryId: string
  date: string
  month: string
  late: boolean
  cents: number
}

/** Where a month's rows are read from, and the cut its late part starts after. */
export interface SeriesWindow {
  accounts: readonly string[]
  from: string
  to: string
  /** The forecast's cut day and its month's length: `late` as the daily sums' read computes it. */
  cutDay: number
  monthDays: number
}

/**
 * The spending of rows that a recurrence did not book, on `accounts` from `from` to `to`, whose
 * series is one of `keys` (or, with `keys` null, of every series), each part in its category.
 * It counts what the daily sums count (live `normal` rows, no transfer legs), so taking it from
 * them leaves what no known occurrence covers.
 */
export async function seriesSpending(
  db: Db,
  householdId: string,
  keys: ReadonlySet<string> | null,
  window: SeriesWindow,
): Promise<SeriesSpending[]> {
  if (window.accounts.length === 0 || keys?.size === 0 || window.to < window.from) return []
  const payees = new Set<string>()
  const memos = new Set<string>()
  const amounts = new Set<number>()
  for (const key of keys ?? []) {
    const who = key.slice(key.indexOf('|') + 1)
    if (who.startsWith('p:')) payees.add(who.slice(2))
    else if (who.startsWith('m:')) memos.add(who.slice(2))
    else amounts.add(-Number(who.slice(2)))
  }
  // One clause per kind of key, none empty, so each can use its index (payee, or the date range).
  const clauses = [
    ...(payees.size ? [sql`t.payee_id in (${sql.join([...payees])})`] : []),
    ...(memos.size ? [sql`(t.payee_id is null and t.memo in (${sql.join([...memos])}))`] : []),
    ...(amounts.size
      ? [
          sql`(t.payee_id is null and coalesce(t.memo, '') = '' and t.amount_cents in (${sql.join([...amounts])}))`,
        ]
      : []),
  ]
  const dates = sql`t.date >= ${window.from}::date and t.date <= ${window.to}::date`
  // The series' rows are found by their keys first (the payee index), the dates applied after:
  // a plan made for any dates would otherwise walk the whole range by the date index.
  const matches = keys === null ? dates : sql`(${sql.join(clauses, sql` or `)})`
  const { cutDay, monthDays } = window
  const query = sql<{
    category_id: string
    date: string
    payee_id: string | null
    memo: string | null
    row_spent: string
    spent: string
  }>`
    select x.category_id, t.date::text as date, t.payee_id, t.memo, (-t.amount_cents)::text as row_spent,
      x.spent::text as spent
    from (
      select t.* from transactions t
      where t.household_id = ${householdId} and ${matches}
      offset 0
    ) t
    cross join lateral (
      select coalesce(t.category_id, '') as category_id, -t.amount_cents as spent
      union all
      select y.category_id, y.spent
      from transaction_splits s
      cross join lateral (values (coalesce(s.category_id, t.category_id, ''), -s.amount_cents),
        (coalesce(t.category_id, ''), s.amount_cents)) as y(category_id, spent)
      where s.household_id = t.household_id and s.transaction_id = t.id
    ) x
    where ${dates} and t.account_id in (${sql.join(window.accounts)})
      and t.deleted_at is null and t.merged_into_id is null and t.transfer_group_id is null
      and t.kind = 'normal' and t.source <> 'recurring'`
  const { rows } = await query.execute(db)
  const sums = new Map<string, SeriesSpending>()
  for (const r of rows) {
    const categoryId = r.category_id
    const key = seriesKey(categoryId === '' ? null : categoryId, r.payee_id, r.memo, Number(r.row_spent))
    if (keys !== null && !keys.has(key)) continue
    const day = Number(r.date.slice(8))
    const monthEnd = isLastDay(r.date)
    const late = cutDay < monthDays && (day > cutDay || monthEnd)
    const id = `${key}|${r.date}`
    const s = sums.get(id) ?? { key, categoryId, date: r.date, month: r.date.slice(0, 7), late, cents: 0 }
    s.cents += Number(r.spent)
    sums.set(id, s)
  }
  return [...sums.values()].filter((s) => s.cents !== 0)
}

/** Whether a date is the last day of its month. */
function isLastDay(date: string): boolean {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number]
  return new Date(Date.UTC(y, m, 0)).getUTCDate() === d
}
