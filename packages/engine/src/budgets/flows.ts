import { type Kysely, type RawBuilder, sql, type Transaction } from 'kysely'
import { type CategoryGoal, toCategoryGoal } from '../catalog/category-goal.ts'
import type { Database } from '../database.ts'
import { inSnapshot, keepClosings, parseClosing } from './closings.ts'
import {
  addTo,
  type BudgetCategory,
  type BudgetFlows,
  budgetMonth,
  emptyFlows,
  type MonthBudget,
  type MonthClosing,
} from './model.ts'
import { dayAfterMonth } from './month.ts'

type Db = Kysely<Database> | Transaction<Database>

/** A category as the budget lists it, with what the math needs. */
export interface BudgetCategoryInfo extends BudgetCategory {
  name: string
  groupId: string
  position: number
  hidden: boolean
  deleted: boolean
  /** A payment category of a card that has no category row yet (it is made on its first assignment). */
  virtual: boolean
  goal: CategoryGoal | null
}

/** A group as the budget lists it. */
export interface BudgetGroupInfo {
  id: string
  name: string
  position: number
  hidden: boolean
  isIncome: boolean
  deleted: boolean
}

/** The name and id the payment categories' group gets; its id is the household's, so every device agrees. */
export const PAYMENT_GROUP_NAME = 'Credit Card Payments'

/** Everything the month snapshot is computed from. */
export interface LoadedBudget {
  baseCurrency: string
  groups: BudgetGroupInfo[]
  categories: BudgetCategoryInfo[]
  flows: BudgetFlows
  /** The household's clock when it was read: closings computed from this load are kept only while it still reads so. */
  version: string | null
}

/** One sum of the activity read: month, category, card, transfer between on-budget accounts, cents. */
type ActivityRow = [
  month: string,
  categoryId: string | null,
  cardId: string | null,
  inner: boolean,
  cents: string,
]

/**
 * The month snapshot's one heavy statement: what the ledger adds to the budget up to `month`, as
 * sums per month, account and category, with the card (a credit account's id) and whether it is
 * a transfer between two on-budget accounts, on cash and credit accounts in the base currency.
 * Several rows may share a month, category and card (two cash accounts): the caller adds them.
 * Rows that are not transfer legs come summed from `budget_activity`; transfer legs (few) are
 * read from the ledger, split rows by their parts. `after` (a month) leaves out that month and
 * every month before it: the roll starts from its closing.
 */
export function activityQuery(
  householdId: string,
  baseCurrency: string,
  month: string,
  categoryFilter: RawBuilder<unknown> = sql``,
  after = '',
) {
  // Thousands of rows travel as one JSON text: far cheaper than as rows, on PGlite above all.
  return sql<{ rows: string }>`
    with acc as (
      select id from accounts
      where household_id = ${householdId} and type in ('cash', 'credit')
        and currency = ${baseCurrency} and deleted_at is null
    ),
    all_legs as (
      select t.id, t.account_id, t.date, t.amount_cents, t.category_id, t.transfer_group_id
      from transactions t
      where t.household_id = ${householdId} and t.transfer_group_id is not null
        and t.deleted_at is null and t.merged_into_id is null and t.account_id in (select id from acc)
    ),
    legs as (
      select * from all_legs where date >= ${after ? dayAfterMonth(after) : '0001-01-01'}::date
        and date < ${dayAfterMonth(month)}::date
    ),
    -- Whether a transfer stays on budget does not depend on the month read, though its legs may
    -- be dated apart (a linked pair up to 7 days): every month's figures stay the same however late.
    inner_groups as (
      select transfer_group_id from all_legs group by transfer_group_id having count(*) > 1
    ),
    parts as (
      select b.month, b.account_id, b.category_id, false as inner_transfer, b.amount_cents as amount
      from budget_activity b
      where b.household_id = ${householdId} and b.month > ${after} and b.month <= ${month} and b.amount_cents <> 0
      union all
      select to_char(l.date, 'YYYY-MM'), l.account_id,
             case when s.id is null then l.category_id else s.category_id end,
             l.transfer_group_id in (select transfer_group_id from inner_groups),
             sum(coalesce(s.amount_cents, l.amount_cents))
      from legs l
      left join transaction_splits s on s.household_id = ${householdId} and s.transaction_id = l.id
      group by 1, 2, 3, 4
    )
    select coalesce(json_agg(json_build_array(
             p.month, p.category_id, case when a.type = 'credit' then p.account_id end,
             p.inner_transfer, p.amount::text)), '[]')::text as rows
    from parts p
    join accounts a on a.household_id = ${householdId} and a.id = p.account_id
      and a.type in ('cash', 'credit') and a.currency = ${baseCurrency} and a.deleted_at is null
    where true ${categoryFilter}`
}

/**
 * Reads what the budget of `month` is computed from, summed in SQL per month, category and
 * card: live rows dated up to the end of the month on open or closed cash and credit accounts
 * in the household's base currency (split rows by their parts), and every assignment. A
 * transfer whose two legs are both on such accounts is told apart, so it never counts as
 * spending. When a closing of an earlier month is kept (closings.ts), only the months after the
 * latest one are read, and the roll starts from it. `categoryIds` narrows the read to some
 * spending categories (the overrun check). Outside a transaction the reads share one snapshot
 * (repeatable read), so the closings they let a reader keep match one state of the store.
 */
export async function loadBudget(
  db: Db,
  householdId: string,
  month: string,
  categoryIds?: readonly string[],
): Promise<LoadedBudget> {
  if (!db.isTransaction) return inSnapshot(db, (tx) => loadBudget(tx, householdId, month, categoryIds))
  const { rows: head } = await sql<{
    base_currency: string
    version: string | null
    start_month: string | null
    start_state: string | null
  }>`
    select h.base_currency, (select version::text from household_clock where household_id = h.id) as version,
           c.month as start_month, c.state as start_state
    from households h
    left join lateral (
      select month, state from budget_closings
      where household_id = h.id and month < ${month} order by month desc limit 1
    ) c on true
    where h.id = ${householdId}`.execute(db)
  if (!head[0]) throw new Error(`Household ${householdId} not found`)
  const { base_currency: baseCurrency, version, start_month: startMonth, start_state: startState } = head[0]
  const after = startMonth ?? ''
  const only = categoryIds !== undefined
  const ids = sql.join(only && categoryIds.length ? categoryIds : [''])
  const categoryFilter = only ? sql`and p.category_id in (${ids})` : sql``

  // A narrowed read (the overrun check) needs neither the groups nor the cards' payment categories.
  const none = { rows: [] }
  const [groups, categoryRows, cards, activity, cells] = await Promise.all([
    only
      ? none
      : sql<{
          id: string
          name: string
          position: number
          hidden: boolean
          is_income: boolean
          deleted: boolean
        }>`select id, name, position, hidden, is_income, deleted_at is not null as deleted
       from category_groups where household_id = ${householdId}
       order by position, id`.execute(db),
    sql<{
      id: string
      group_id: string
      name: string
      position: number
      hidden: boolean
      deleted: boolean
      carry_overspending: boolean
      payment_account_id: string | null
      is_income: boolean
      goal: unknown
    }>`select c.id, c.group_id, c.name, c.position, c.hidden, c.deleted_at is not null as deleted,
              c.carry_overspending, c.payment_account_id, g.is_income, c.goal
       from categories c join category_groups g on g.household_id = c.household_id and g.id = c.group_id
       where c.household_id = ${householdId} ${only ? sql`and c.id in (${ids})` : sql``}
       order by c.position, c.id`.execute(db),
    only
      ? none
      : sql<{ id: string; name: string; position: number }>`
       select id, name, position from accounts
       where household_id = ${householdId} and type = 'credit' and currency = ${baseCurrency} and deleted_at is null
       order by position, id`.execute(db),
    activityQuery(householdId, baseCurrency, month, categoryFilter, after).execute(db),
    sql<{ month: string; category_id: string; cents: string }>`
      select month, category_id, assigned_cents::text as cents from budget_cells
      where household_id = ${householdId} and month > ${after} and assigned_cents <> 0
        ${only ? sql`and month <= ${month} and category_id in (${ids})` : sql``}`.execute(db),
  ])

  const groupInfo: BudgetGroupInfo[] = groups.rows.map((g) => ({
    id: g.id,
    name: g.name,
    position: g.position,
    hidden: g.hidden,
    isIncome: g.is_income,
    deleted: g.deleted,
  }))
  const categories: BudgetCategoryInfo[] = categoryRows.rows.map((c) => ({
    id: c.id,
    groupId: c.group_id,
    name: c.name,
    position: c.position,
    hidden: c.hidden,
    deleted: c.deleted,
    virtual: false,
    goal: toCategoryGoal(c.goal),
    carryOverspending: c.carry_overspending,
    paymentAccountId: c.payment_account_id,
    kind: c.payment_account_id !== null ? 'payment' : c.is_income ? 'income' : 'spending',
  }))
  // Every live card gets a payment category; one not made yet is shown under the household's id.
  const withPayment = new Set(categories.flatMap((c) => (c.paymentAccountId ? [c.paymentAccountId] : [])))
  for (const card of cards.rows) {
    if (withPayment.has(card.id)) continue
    categories.push({
      id: card.id,
      groupId: householdId,
      name: card.name,
      position: card.position,
      hidden: false,
      deleted: false,
      virtual: true,
      goal: null,
      carryOverspending: false,
      paymentAccountId: card.id,
      kind: 'payment',
    })
    withPayment.add(card.id)
  }
  if (categories.some((c) => c.virtual) && !groupInfo.some((g) => g.id === householdId)) {
    groupInfo.push({
      id: householdId,
      name: PAYMENT_GROUP_NAME,
      position: Number.MAX_SAFE_INTEGER,
      hidden: false,
      isIncome: false,
      deleted: false,
    })
  }

  const kindOf = new Map(categories.map((c) => [c.id, c.kind]))
  const paymentIds = new Set(categories.filter((c) => c.kind === 'payment').map((c) => c.paymentAccountId))
  let firstMonth = month
  const flows = emptyFlows(only ? categories.filter((c) => categoryIds.includes(c.id)) : categories, month)
  for (const [m, categoryId, cardId, inner, text] of JSON.parse(activity.rows[0]!.rows) as ActivityRow[]) {
    if (m < firstMonth) firstMonth = m
    const cents = BigInt(text)
    const kind = categoryId === null ? undefined : kindOf.get(categoryId)
    if (inner) {
      // Between two on-budget accounts: counts only as a payment to or from a card.
      if (cardId !== null && paymentIds.has(cardId)) addTo(flows.payments, m, cardId, -cents)
    } else if (cardId === null) {
      if (categoryId === null) flows.uncategorized.set(m, (flows.uncategorized.get(m) ?? 0n) + cents)
      else addTo(flows.cash, m, categoryId, cents)
    } else if (kind === 'income') {
      addTo(flows.cash, m, categoryId as string, cents)
    } else if (kind === 'spending') {
      const byCategory = flows.card.get(m) ?? new Map<string, Map<string, bigint>>()
      flows.card.set(m, byCategory)
      addTo(byCategory, categoryId as string, cardId, cents)
    }
    // Uncategorized card rows, and card rows in a payment category, are card debt the budget does not hold.
  }
  for (const cell of cells.rows) {
    if (cell.month < firstMonth) firstMonth = cell.month
    addTo(flows.assigned, cell.month, cell.category_id, BigInt(cell.cents))
  }
  flows.firstMonth = firstMonth
  if (startMonth !== null && startState !== null)
    flows.start = { month: startMonth, closing: parseClosing(startState) }
  return { baseCurrency, groups: groupInfo, categories, flows, version }
}

/**
 * The budget of `month` as a reader sees it: loaded from the latest kept closing before the
 * month, rolled forward, and the closings of the months it rolled through kept for the next
 * reader. Inside a transaction (a write) nothing is kept: the write's own triggers may still
 * forget what it would keep.
 */
export async function readBudget(
  db: Db,
  householdId: string,
  month: string,
): Promise<{ loaded: LoadedBudget; budget: MonthBudget }> {
  const loaded = await loadBudget(db, householdId, month)
  const closings = new Map<string, MonthClosing>()
  const budget = budgetMonth(loaded.flows, month, db.isTransaction ? undefined : closings)
  await keepClosings(db, householdId, loaded.version, closings)
  return { loaded, budget }
}
