import type { BudgetCategoryInfo, LoadedBudget } from './flows.ts'
import { goalForMonth } from './goals.ts'
import { budgetMonth, type CategoryKind, type CategoryMonth, type MonthBudget } from './model.ts'

/** How a category stands in a month. */
export type CategoryState = 'overspent' | 'underfunded' | 'funded' | 'zero' | 'income'

/** One category in a month snapshot; cents are decimal integer strings. */
export interface BudgetCategorySnapshot {
  id: string
  name: string
  groupId: string
  kind: CategoryKind
  hidden: boolean
  deleted: boolean
  carryOverspending: boolean
  paymentAccountId: string | null
  carriedInCents: string
  assignedCents: string
  activityCents: string
  availableCents: string
  cashOverspendingCents: string
  creditOverspendingCents: string
  state: CategoryState
  /** What the category's goal asks of the month and how far along it is; null without a goal. */
  goal: BudgetGoalProgress | null
}

/** A goal measured in one month (see docs/budgets.md, Goals); cents as decimal strings. */
export interface BudgetGoalProgress {
  type: string
  suggestedCents: string
  underfundedCents: string
  neededCents: string
  fundedCents: string
  progressBasisPoints: number
  dueDate: string | null
  monthsLeft: number | null
}

/** One group with its categories and their totals (income groups: activity only). */
export interface BudgetGroupSnapshot {
  id: string
  name: string
  isIncome: boolean
  hidden: boolean
  deleted: boolean
  assignedCents: string
  activityCents: string
  availableCents: string
  categories: BudgetCategorySnapshot[]
}

/** A month of the budget: Ready to Assign and how it came about, then every group and category. */
export interface BudgetMonthSnapshot {
  month: string
  currency: string
  readyToAssignCents: string
  readyToAssignCarriedInCents: string
  incomeCents: string
  uncategorizedCents: string
  /** Deprecated: positive. `overspendingLastMonthCents` follows the one sign rule (0 or negative). */
  overspentLastMonthCents: string
  /** Last month's cash overspending taken from Ready to Assign: 0 or negative, as every overspending field. */
  overspendingLastMonthCents: string
  assignedCents: string
  assignedInFutureCents: string
  activityCents: string
  availableCents: string
  cashOverspendingCents: string
  creditOverspendingCents: string
  /** What the month's goals still want assigned: the sum of their `underfundedCents`. */
  underfundedCents: string
  groups: BudgetGroupSnapshot[]
}

const ZERO_MONTH: CategoryMonth = {
  carriedIn: 0n,
  assigned: 0n,
  activity: 0n,
  available: 0n,
  cashOverspending: 0n,
  creditOverspending: 0n,
}

/**
 * The state a category shows: income; overspent (available below zero); underfunded (its goal
 * wants more assigned this month); funded (money left, or a goal met); zero.
 */
export function categoryState(
  kind: CategoryKind,
  m: CategoryMonth,
  goal: { underfundedCents: bigint } | null,
): CategoryState {
  if (kind === 'income') return 'income'
  if (m.available < 0n) return 'overspent'
  if (goal && goal.underfundedCents > 0n) return 'underfunded'
  return m.available > 0n || goal ? 'funded' : 'zero'
}

/** What a category's goal asks of the month, from the month's figures. */
export function goalProgress(c: BudgetCategoryInfo, month: string, m: CategoryMonth) {
  if (!c.goal || c.kind === 'income') return null
  return goalForMonth(c.goal, {
    month,
    startAvailableCents: m.carriedIn,
    assignedCents: m.assigned,
    activityCents: m.activity,
  })
}

/**
 * Shapes the budget of `month` for readers. Live categories are listed; a deleted category
 * (or one in a deleted group) is listed only while it still holds or moves money that month,
 * so the listed categories always add up to the totals.
 */
export function snapshotOf(
  loaded: LoadedBudget,
  month: string,
  budget: MonthBudget = budgetMonth(loaded.flows, month),
): BudgetMonthSnapshot {
  const byGroup = new Map<string, BudgetCategoryInfo[]>()
  const ordered = [...loaded.categories].sort(
    (a, b) => a.position - b.position || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  )
  for (const c of ordered) {
    const list = byGroup.get(c.groupId) ?? []
    list.push(c)
    byGroup.set(c.groupId, list)
  }
  const totals = { activity: 0n, available: 0n, cash: 0n, credit: 0n, underfunded: 0n }
  const groups: BudgetGroupSnapshot[] = []
  for (const g of loaded.groups) {
    const sums = { assigned: 0n, activity: 0n, available: 0n }
    const categories: BudgetCategorySnapshot[] = []
    for (const c of byGroup.get(g.id) ?? []) {
      const m = budget.categories.get(c.id) ?? ZERO_MONTH
      const gone = c.deleted || g.deleted
      if (gone && m.assigned === 0n && m.activity === 0n && m.available === 0n && m.carriedIn === 0n) continue
      if (c.kind !== 'income') {
        sums.assigned += m.assigned
        sums.available += m.available
        totals.activity += m.activity
        totals.available += m.available
        totals.cash += m.cashOverspending
        totals.credit += m.creditOverspending
      }
      sums.activity += m.activity
      const goal = goalProgress(c, month, m)
      if (goal && c.goal && !c.deleted) totals.underfunded += goal.underfundedCents
      categories.push({
        id: c.id,
        name: c.name,
        groupId: c.groupId,
        kind: c.kind,
        hidden: c.hidden,
        deleted: c.deleted,
        carryOverspending: c.carryOverspending,
        paymentAccountId: c.paymentAccountId,
        carriedInCents: String(m.carriedIn),
        assignedCents: String(m.assigned),
        activityCents: String(m.activity),
        availableCents: String(m.available),
        cashOverspendingCents: String(m.cashOverspending),
        creditOverspendingCents: String(m.creditOverspending),
        state: categoryState(c.kind, m, goal),
        goal:
          goal && c.goal
            ? {
                type: c.goal.type,
                suggestedCents: String(goal.suggestedCents),
                underfundedCents: String(goal.underfundedCents),
                neededCents: String(goal.neededCents),
                fundedCents: String(goal.fundedCents),
                progressBasisPoints: goal.progressBasisPoints,
                dueDate: goal.dueDate,
                monthsLeft: goal.monthsLeft,
              }
            : null,
      })
    }
    if (g.deleted && categories.length === 0) continue
    groups.push({
      id: g.id,
      name: g.name,
      isIncome: g.isIncome,
      hidden: g.hidden,
      deleted: g.deleted,
      assignedCents: String(sums.assigned),
      activityCents: String(sums.activity),
      availableCents: String(sums.available),
      categories,
    })
  }
  return {
    month,
    currency: loaded.baseCurrency,
    readyToAssignCents: String(budget.readyToAssign),
    readyToAssignCarriedInCents: String(budget.readyToAssignCarriedIn),
    incomeCents: String(budget.income),
    uncategorizedCents: String(budget.uncategorized),
    overspentLastMonthCents: String(budget.overspentLastMonth),
    overspendingLastMonthCents: String(-budget.overspentLastMonth),
    assignedCents: String(budget.assigned),
    assignedInFutureCents: String(budget.assignedInFuture),
    activityCents: String(totals.activity),
    availableCents: String(totals.available),
    cashOverspendingCents: String(totals.cash),
    creditOverspendingCents: String(totals.credit),
    underfundedCents: String(totals.underfunded),
    groups,
  }
}
