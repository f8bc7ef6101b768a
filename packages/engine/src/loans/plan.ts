import { type Kysely, sql } from 'kysely'
import type { Database } from '../database.ts'
import { callerToday } from '../ledger/local-day.ts'
import type { HouseholdContext } from '../mutator/context.ts'
import {
  amortize,
  type LoanSchedule,
  monthsAfter,
  paymentDate,
  type ScheduleChanges,
  type ScheduleRow,
  scheduleTotals,
} from './amortization.ts'
import { loanTermsHistory, requireLoanAccount, termsInForce } from './lookups.ts'
import { type AmortizationRow, type LoanTerms, toAmortizationRow, toLoanTerms, toSchedule } from './model.ts'

/** A loan as a projection starts from: its terms in force, the caller's day and the first payment a what-if may change. */
export interface LoanBasis {
  accountId: string
  today: string
  terms: LoanTerms
  schedule: LoanSchedule
  /** The payment in the caller's current month (or the first one, for a loan not yet begun). */
  fromIndex: number
}

/** Loads the loan account's terms in force on the caller's local day. */
export async function loanBasis(
  db: Kysely<Database>,
  ctx: HouseholdContext,
  accountId: string,
): Promise<LoanBasis> {
  const account = await requireLoanAccount(db, ctx.householdId, accountId)
  const today = await callerToday(db, ctx)
  const row = termsInForce(await loanTermsHistory(db, ctx.householdId, account.id), today)
  const schedule = toSchedule(row)
  const fromIndex = Math.max(0, monthsAfter(schedule.firstPaymentDate.slice(0, 7), today.slice(0, 7)))
  return { accountId: account.id, today, terms: toLoanTerms(row), schedule, fromIndex }
}

/** A table with what it costs, as the API shows it. */
export interface LoanPlan {
  paymentCents: string
  escrowCents: string
  payoffYearMonth: string
  payoffDate: string
  paymentCount: number
  totalInterestCents: string
  totalPaidCents: string
  /** Interest from the current month's payment on. */
  remainingInterestCents: string
  schedule: AmortizationRow[]
}

/** The table under `changes`, with its payoff month and totals. */
export function planOf(basis: LoanBasis, changes: ScheduleChanges): { rows: ScheduleRow[]; plan: LoanPlan } {
  const rows = amortize(basis.schedule, changes)
  const totals = scheduleTotals(rows)
  const remaining = rows.slice(basis.fromIndex).reduce((sum, r) => sum + r.interestCents, 0n)
  const payoffDate = totals.payoffDate ?? basis.schedule.firstPaymentDate
  return {
    rows,
    plan: {
      paymentCents: String(changes.paymentCents ?? basis.schedule.paymentCents),
      escrowCents: String(basis.schedule.escrowCents),
      payoffYearMonth: payoffDate.slice(0, 7),
      payoffDate,
      paymentCount: rows.length,
      totalInterestCents: String(totals.totalInterestCents),
      totalPaidCents: String(totals.totalPaidCents),
      remainingInterestCents: String(remaining),
      schedule: rows.map(toAmortizationRow),
    },
  }
}

/** This month's payments into the loan account, split as the lender applies them. */
export interface LoanMonthSplit {
  yearMonth: string
  /** The scheduled payment dated this month, if there is one. */
  scheduledPaymentCents: string | null
  paidCents: string
  interestCents: string
  escrowCents: string
  principalCents: string
}

/**
 * Splits the money paid into the loan account this month (its inflows, not deleted or folded
 * into another row): interest first, up to the month's scheduled interest, then escrow up to
 * the scheduled escrow, and the rest to principal.
 */
export async function thisMonthSplit(
  db: Kysely<Database>,
  ctx: HouseholdContext,
  basis: LoanBasis,
  rows: readonly ScheduleRow[],
): Promise<LoanMonthSplit> {
  const month = basis.today.slice(0, 7)
  const { paid } = await db
    .selectFrom('transactions')
    .select(sql<number>`coalesce(sum(amount_cents), 0)::bigint`.as('paid'))
    .where('household_id', '=', ctx.householdId)
    .where('account_id', '=', basis.accountId)
    .where('deleted_at', 'is', null)
    .where('merged_into_id', 'is', null)
    .where('kind', '=', 'normal')
    .where('amount_cents', '>', 0)
    .where('date', '>=', `${month}-01`)
    .where('date', '<', paymentDate(`${month}-01`, 1))
    .executeTakeFirstOrThrow()
  const row = rows.find((r) => r.date.startsWith(month))
  const total = BigInt(paid)
  const interest = min(total, row?.interestCents ?? 0n)
  const escrow = min(total - interest, row?.escrowCents ?? 0n)
  return {
    yearMonth: month,
    scheduledPaymentCents: row ? String(row.paymentCents) : null,
    paidCents: String(total),
    interestCents: String(interest),
    escrowCents: String(escrow),
    principalCents: String(total - interest - escrow),
  }
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b
}
