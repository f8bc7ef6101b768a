import { formatRatePercent, type LoanSchedule, type ScheduleRow } from './amortization.ts'
import type { LoanTermsRow } from './tables.ts'

/** A loan account's terms from one date on, as the API shows them (cents as decimal strings). */
export interface LoanTerms {
  id: string
  accountId: string
  effectiveDate: string
  principalCents: string
  /** Exact decimal text of the annual rate in percent, such as "6.5". */
  annualRatePercent: string
  paymentCents: string
  escrowCents: string
  firstPaymentDate: string
  termMonths: number | null
  createdAt: string
  updatedAt: string
}

/** One payment of an amortization table, as the API shows it. */
export interface AmortizationRow {
  number: number
  date: string
  paymentCents: string
  principalCents: string
  interestCents: string
  escrowCents: string
  extraCents: string
  balanceCents: string
}

export function toLoanTerms(row: LoanTermsRow): LoanTerms {
  return {
    id: row.id,
    accountId: row.account_id,
    effectiveDate: row.effective_date,
    principalCents: String(row.principal_cents),
    annualRatePercent: formatRatePercent(row.annual_rate_units),
    paymentCents: String(row.payment_cents),
    escrowCents: String(row.escrow_cents),
    firstPaymentDate: row.first_payment_date,
    termMonths: row.term_months,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

/** The schedule a stored terms row runs on. */
export function toSchedule(row: LoanTermsRow): LoanSchedule {
  return {
    principalCents: BigInt(row.principal_cents),
    rateUnits: BigInt(row.annual_rate_units),
    paymentCents: BigInt(row.payment_cents),
    escrowCents: BigInt(row.escrow_cents),
    firstPaymentDate: row.first_payment_date,
    termMonths: row.term_months,
  }
}

export function toAmortizationRow(row: ScheduleRow): AmortizationRow {
  return {
    number: row.number,
    date: row.date,
    paymentCents: String(row.paymentCents),
    principalCents: String(row.principalCents),
    interestCents: String(row.interestCents),
    escrowCents: String(row.escrowCents),
    extraCents: String(row.extraCents),
    balanceCents: String(row.balanceCents),
  }
}
