import { monthsBetween, nextMonth } from './month.ts'

/**
 * Envelope budgeting as pure integer math: what each category holds month by month, and
 * Ready to Assign. Every amount is bigint cents, so no sum can lose a cent. docs/budgets.md
 * states every rule with a worked example; the tests beside this file follow it.
 */

/** spending: an ordinary envelope; income: money arriving for Ready to Assign; payment: a credit card's payment envelope. */
export type CategoryKind = 'spending' | 'income' | 'payment'

/** What the math needs to know about a category. */
export interface BudgetCategory {
  id: string
  kind: CategoryKind
  /** Cash overspending stays in the category into the next month instead of coming out of Ready to Assign. */
  carryOverspending: boolean
  /** For a payment category, the credit account it pays. */
  paymentAccountId: string | null
}

/** `month -> key -> cents`. */
export type MonthMap<K = string> = Map<string, Map<K, bigint>>

/** Everything the budget is computed from, already summed per month. */
export interface BudgetFlows {
  categories: readonly BudgetCategory[]
  /** Assigned per month and category. */
  assigned: MonthMap
  /**
   * Activity per month and category that is not card spending on a spending category: rows on
   * cash accounts (any category), and rows in income categories on any on-budget account.
   */
  cash: MonthMap
  /** Card activity per month, spending category and credit account: net, negative is spending. */
  card: Map<string, Map<string, Map<string, bigint>>>
  /** Transfers between a credit account and another on-budget account, per month and card: minus the card leg. */
  payments: MonthMap
  /** Uncategorized rows on cash accounts per month (opening balances among them): straight to Ready to Assign. */
  uncategorized: Map<string, bigint>
  /** The first month anything happened in; nothing rolls over from before it. */
  firstMonth: string
  /**
   * Where the roll starts when a month's closing is known: the flows then hold only the months
   * after it, and the roll begins with what that month handed on.
   */
  start?: { month: string; closing: MonthClosing }
}

/** What a month hands to the next: enough to roll the budget on from there. */
export interface MonthClosing {
  /** What each category carries into the next month; a category not listed carries nothing. */
  carry: Map<string, bigint>
  /** Ready to Assign at the end of the month, before money assigned in later months is taken. */
  readyToAssign: bigint
  /** Cash overspending of the month that comes out of the next month's Ready to Assign. */
  overspent: bigint
}

/** One category in one month. */
export interface CategoryMonth {
  /** What rolled in from the month before. */
  carriedIn: bigint
  assigned: bigint
  activity: bigint
  available: bigint
  /** The part of a negative available paid from cash: it comes out of next month's Ready to Assign (or carries). */
  cashOverspending: bigint
  /** The part of a negative available that is uncovered card spending: it becomes card debt. */
  creditOverspending: bigint
}

/** The budget of one month. */
export interface MonthBudget {
  month: string
  categories: Map<string, CategoryMonth>
  /** Ready to Assign left at the end of the month before (before later assignments are taken). */
  readyToAssignCarriedIn: bigint
  /** Rows in income categories this month. */
  income: bigint
  /** Uncategorized rows on cash accounts this month. */
  uncategorized: bigint
  /** Last month's cash overspending in categories that do not carry it: taken from this month. */
  overspentLastMonth: bigint
  /** Assigned this month to spending and payment categories. */
  assigned: bigint
  /** Assigned in months after this one: YNAB takes it from Ready to Assign now. */
  assignedInFuture: bigint
  readyToAssign: bigint
}

const ZERO = 0n

function get<K>(map: Map<K, bigint> | undefined, key: K): bigint {
  return map?.get(key) ?? ZERO
}

/**
 * Spreads one month's card activity of a spending category over the cards' payment categories.
 * `funds` is what the category holds before card activity (carried in, assigned, cash activity).
 * A card refund adds to the category and leaves that card's payment category; spending is
 * covered from what the category holds (refunds included), card by card in account id order,
 * and the covered part moves to the card's payment category. What is not covered is credit
 * overspending.
 */
export function settleCardSpending(
  funds: bigint,
  cards: ReadonlyMap<string, bigint>,
): { moved: Map<string, bigint>; uncovered: bigint } {
  const moved = new Map<string, bigint>()
  let held = funds
  const spending: [string, bigint][] = []
  for (const [card, net] of [...cards].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (net > ZERO) {
      held += net
      moved.set(card, -net)
    } else if (net < ZERO) spending.push([card, -net])
  }
  let left = held > ZERO ? held : ZERO
  let uncovered = ZERO
  for (const [card, spent] of spending) {
    const covered = spent < left ? spent : left
    left -= covered
    uncovered += spent - covered
    moved.set(card, (moved.get(card) ?? ZERO) + covered)
  }
  return { moved, uncovered }
}

/** Splits a negative available into its credit part (uncovered card spending) and its cash part. */
export function splitOverspending(available: bigint, uncovered: bigint): { cash: bigint; credit: bigint } {
  if (available >= ZERO) return { cash: ZERO, credit: ZERO }
  const credit = available > -uncovered ? available : -uncovered
  return { cash: available - credit, credit }
}

/**
 * Rolls the budget forward from `flows.firstMonth` (or from the closing in `flows.start`) to
 * `month` and answers that month. A positive available carries into the next month; cash
 * overspending comes out of the next month's Ready to Assign, or stays in the category when it
 * carries overspending; credit overspending becomes card debt and leaves both. Each month the
 * roll passes before `month` leaves its closing in `closings`, when given.
 */
export function budgetMonth(
  flows: BudgetFlows,
  month: string,
  closings?: Map<string, MonthClosing>,
): MonthBudget {
  const spending = flows.categories.filter((c) => c.kind === 'spending')
  const payment = flows.categories.filter((c) => c.kind === 'payment')
  const income = flows.categories.filter((c) => c.kind === 'income')

  const start = flows.start && flows.start.month < month ? flows.start : undefined
  const carry = new Map<string, bigint>(start?.closing.carry)
  let readyCarried = start?.closing.readyToAssign ?? ZERO
  let penalty = start?.closing.overspent ?? ZERO
  let result: MonthBudget | null = null
  const from = start ? nextMonth(start.month) : flows.firstMonth
  const first = from < month ? from : month

  for (const m of monthsBetween(first, month)) {
    const assigned = flows.assigned.get(m)
    const cash = flows.cash.get(m)
    const card = flows.card.get(m)
    const payments = flows.payments.get(m)
    const target = m === month
    const categories = new Map<string, CategoryMonth>()
    const moved = new Map<string, bigint>()
    let assignedTotal = ZERO
    let nextPenalty = ZERO

    // Rolls one category to the end of the month; the month's figures are kept only for `month`.
    const close = (c: BudgetCategory, carriedIn: bigint, a: bigint, activity: bigint, uncovered: bigint) => {
      const available = carriedIn + a + activity
      assignedTotal += a
      if (available >= ZERO) {
        carry.set(c.id, available)
        if (target)
          categories.set(c.id, {
            carriedIn,
            assigned: a,
            activity,
            available,
            cashOverspending: ZERO,
            creditOverspending: ZERO,
          })
        return
      }
      const { cash: cashOver, credit } = splitOverspending(available, uncovered)
      if (target)
        categories.set(c.id, {
          carriedIn,
          assigned: a,
          activity,
          available,
          cashOverspending: cashOver,
          creditOverspending: credit,
        })
      if (c.carryOverspending) carry.set(c.id, cashOver)
      else {
        carry.set(c.id, ZERO)
        nextPenalty -= cashOver
      }
    }

    for (const c of spending) {
      const carriedIn = get(carry, c.id)
      const cards = card?.get(c.id)
      // Nothing happened and nothing is owed: the category carries what it had.
      if (!target && carriedIn >= ZERO && !cards && !assigned?.has(c.id) && !cash?.has(c.id)) continue
      const a = get(assigned, c.id)
      const cashActivity = get(cash, c.id)
      let cardActivity = ZERO
      let uncovered = ZERO
      if (cards && cards.size > 0) {
        for (const net of cards.values()) cardActivity += net
        const settled = settleCardSpending(carriedIn + a + cashActivity, cards)
        uncovered = settled.uncovered
        for (const [k, v] of settled.moved) moved.set(k, (moved.get(k) ?? ZERO) + v)
      }
      close(c, carriedIn, a, cashActivity + cardActivity, uncovered)
    }
    for (const c of payment) {
      const k = c.paymentAccountId as string
      close(
        c,
        get(carry, c.id),
        get(assigned, c.id),
        get(cash, c.id) + get(moved, k) + get(payments, k),
        ZERO,
      )
    }
    // The loader gives every card a payment category; a read narrowed to some spending
    // categories (the overrun check) leaves them out, and then what moves to them is not needed.

    let incomeTotal = ZERO
    for (const c of income) {
      const activity = get(cash, c.id)
      incomeTotal += activity
      if (target)
        categories.set(c.id, {
          carriedIn: ZERO,
          assigned: ZERO,
          activity,
          available: ZERO,
          cashOverspending: ZERO,
          creditOverspending: ZERO,
        })
    }
    const uncategorized = flows.uncategorized.get(m) ?? ZERO
    const ready = readyCarried + incomeTotal + uncategorized - penalty - assignedTotal
    if (target) {
      result = {
        month,
        categories,
        readyToAssignCarriedIn: readyCarried,
        income: incomeTotal,
        uncategorized,
        overspentLastMonth: penalty,
        assigned: assignedTotal,
        assignedInFuture: ZERO,
        readyToAssign: ready,
      }
    }
    readyCarried = ready
    penalty = nextPenalty
    if (closings && !target) {
      const kept = new Map<string, bigint>()
      for (const [id, cents] of carry) if (cents !== ZERO) kept.set(id, cents)
      closings.set(m, { carry: kept, readyToAssign: ready, overspent: nextPenalty })
    }
  }

  const later = assignedAfter(flows, month)
  const answer = result as MonthBudget
  answer.assignedInFuture = later
  answer.readyToAssign -= later
  return answer
}

/** Everything assigned to spending and payment categories in months after `month`. */
function assignedAfter(flows: BudgetFlows, month: string): bigint {
  const budgeted = new Set(flows.categories.filter((c) => c.kind !== 'income').map((c) => c.id))
  let total = ZERO
  for (const [m, cells] of flows.assigned) {
    if (m <= month) continue
    for (const [id, cents] of cells) if (budgeted.has(id)) total += cents
  }
  return total
}

/** An empty set of flows starting at `month`, for building up in tests and loaders. */
export function emptyFlows(categories: readonly BudgetCategory[], firstMonth: string): BudgetFlows {
  return {
    categories,
    assigned: new Map(),
    cash: new Map(),
    card: new Map(),
    payments: new Map(),
    uncategorized: new Map(),
    firstMonth,
  }
}

/** Adds cents to `map[month][key]`. */
export function addTo<K>(map: Map<string, Map<K, bigint>>, month: string, key: K, cents: bigint): void {
  let inner = map.get(month)
  if (!inner) {
    inner = new Map()
    map.set(month, inner)
  }
  inner.set(key, (inner.get(key) ?? ZERO) + cents)
}
