import type { ColumnType, Selectable } from 'kysely'

type Timestamp = ColumnType<Date, Date | string, Date | string>

/**
 * A loan account's terms from one effective date on; the newest date on or before a day is the
 * terms in force that day. Each row holds the full terms, omitted fields already carried over
 * from the row before it when it was written.
 */
export interface LoanTermsTable {
  household_id: string
  /** Derived from the account and the effective date, so every replica names the row alike. */
  id: string
  account_id: string
  effective_date: string
  /** What is owed just before the first payment's month of interest. */
  principal_cents: number
  /** The annual rate in 0.0001 percent units: 6.5% is 65000. */
  annual_rate_units: number
  /** The monthly principal and interest. */
  payment_cents: number
  escrow_cents: ColumnType<number, number | undefined, number>
  first_payment_date: string
  /** Payments until maturity, when the loan has one; the last of them clears the balance. */
  term_months: number | null
  created_at: Timestamp
  updated_at: Timestamp
}

export type LoanTermsRow = Selectable<LoanTermsTable>

/** The loans domain's tables, for the engine's database type. */
export interface LoanTables {
  loan_terms: LoanTermsTable
}
