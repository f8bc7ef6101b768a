import type { CategoryGoal } from '../catalog/category-goal.ts'
import { addMonths, daysInMonth, lastDayOf, monthsFrom } from './month.ts'

/** A category's figures for one month, as the month snapshot computes them, in integer cents. */
export interface GoalMonthInput {
  /** The month, YYYY-MM. */
  month: string
  /** What the category held when the month began (last month's available after rollover). */
  startAvailableCents: bigint
  /** What the category received this month (assignments and moves). */
  assignedCents: bigint
  /** This month's spending (negative) and inflows (positive) in the category. */
  activityCents: bigint
}

/** What a goal asks of one month, and how far the category is along. */
export interface GoalMonth {
  /** The amount the goal wants assigned this month in all; auto-assign raises `assigned` to it. */
  suggestedCents: bigint
  /** `max(0, suggested - assigned)`: what is still to assign this month. */
  underfundedCents: bigint
  /** The figure progress is measured against (the target, or this month's share of it). */
  neededCents: bigint
  /** What counts toward `needed` now. */
  fundedCents: bigint
  /** `funded / needed` in basis points, floored and clamped to 0..10000; 10000 means met. */
  progressBasisPoints: number
  /** The day the money is due, YYYY-MM-DD; null for a balance goal without a date. */
  dueDate: string | null
  /** Months from this one through the due month, both counted; null without a due date. */
  monthsLeft: number | null
}

/** The basis points that make a whole. */
export const FULL_PROGRESS = 10_000

/**
 * What `goal` asks of `input.month`. Every amount is integer cents; a division over the months
 * left rounds up to the cent, so the goal is met by its date rather than a few cents short.
 */
export function goalForMonth(goal: CategoryGoal, input: GoalMonthInput): GoalMonth {
  const { month, startAvailableCents: start, assignedCents: assigned, activityCents: activity } = input
  switch (goal.type) {
    case 'monthly': {
      const amount = BigInt(goal.amountCents)
      return result(amount, assigned, amount, assigned, lastDayOf(month), 1)
    }
    case 'targetBalance': {
      const target = BigInt(goal.targetCents)
      const suggested = positive(target - start - activity)
      return result(suggested, assigned, target, start + assigned + activity, null, null)
    }
    case 'targetBalanceByDate': {
      const target = BigInt(goal.targetCents)
      const monthsLeft = Math.max(1, monthsFrom(month, goal.targetDate.slice(0, 7)) + 1)
      const suggested = ceilDiv(positive(target - start - activity), BigInt(monthsLeft))
      return result(suggested, assigned, target, start + assigned + activity, goal.targetDate, monthsLeft)
    }
    case 'neededForSpending': {
      const amount = BigInt(goal.amountCents)
      const dueDate = nextDueDate(goal.dueDate, goal.everyMonths, month)
      const monthsLeft = monthsFrom(month, dueDate.slice(0, 7)) + 1
      if (goal.fill === 'refill') {
        // This month's spending does not count against the goal (YNAB's needed for spending):
        // what the category began the month with, plus what it received, does.
        const suggested = ceilDiv(positive(amount - start), BigInt(monthsLeft))
        return result(suggested, assigned, amount, start + assigned, dueDate, monthsLeft)
      }
      const share = setAsideShare(amount, goal.everyMonths, monthsLeft)
      return result(share, assigned, share, assigned, dueDate, monthsLeft)
    }
  }
}

function result(
  suggested: bigint,
  assigned: bigint,
  needed: bigint,
  funded: bigint,
  dueDate: string | null,
  monthsLeft: number | null,
): GoalMonth {
  return {
    suggestedCents: suggested,
    underfundedCents: positive(suggested - assigned),
    neededCents: needed,
    fundedCents: funded,
    progressBasisPoints: basisPoints(funded, needed),
    dueDate,
    monthsLeft,
  }
}

/** `funded / needed` in basis points, floored, clamped to 0..10000; nothing needed is met. */
export function basisPoints(funded: bigint, needed: bigint): number {
  if (needed <= 0n) return FULL_PROGRESS
  if (funded <= 0n) return 0
  if (funded >= needed) return FULL_PROGRESS
  return Number((funded * BigInt(FULL_PROGRESS)) / needed)
}

/**
 * A set-aside goal's share for the month `monthsLeft` months before its due month (1: the due
 * month itself): the cycle's `everyMonths` months share the amount so that the shares add up to
 * it exactly, the odd cents in the earliest months. Months before the cycle begins ask nothing.
 */
export function setAsideShare(amount: bigint, everyMonths: number, monthsLeft: number): bigint {
  const index = everyMonths - monthsLeft
  if (index < 0) return 0n
  const n = BigInt(everyMonths)
  return ceilDiv(amount * BigInt(index + 1), n) - ceilDiv(amount * BigInt(index), n)
}

/**
 * The first due date on or after `month`: `dueDate`, then every `everyMonths` months after it,
 * each on the due date's day of the month, or the month's last day when it has fewer days.
 * A month before the first due date gets the first one.
 */
export function nextDueDate(dueDate: string, everyMonths: number, month: string): string {
  const behind = monthsFrom(dueDate.slice(0, 7), month)
  const cycles = behind <= 0 ? 0 : Math.ceil(behind / everyMonths)
  const due = addMonths(dueDate.slice(0, 7), cycles * everyMonths)
  const day = Math.min(Number(dueDate.slice(8, 10)), daysInMonth(due))
  return `${due}-${String(day).padStart(2, '0')}`
}

function positive(cents: bigint): bigint {
  return cents > 0n ? cents : 0n
}

/** `a / b` rounded up, for `a >= 0` and `b > 0`. */
function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b
}
