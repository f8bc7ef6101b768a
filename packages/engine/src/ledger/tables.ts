import type { ColumnType, Insertable, Selectable } from 'kysely'

type Timestamp = ColumnType<Date, Date | string, Date | string>
type SoftDelete = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
type Defaulted<T> = ColumnType<T, T | undefined, T>

/** cash and credit are on budget; loan and tracking are off budget. */
export type AccountType = 'cash' | 'credit' | 'loan' | 'tracking'
export type AccountStatus = 'open' | 'closed'
export type TransactionStatus = 'pending' | 'cleared' | 'reconciled'
export type TransactionSource = 'manual' | 'imported' | 'ai' | 'recurring' | 'split'
/** normal rows are the user's; opening_balance and adjustment rows are booked by the system. */
export type TransactionKind = 'normal' | 'opening_balance' | 'adjustment'

/**
 * A place money lives. `balance_cents` and `cleared_balance_cents` are maintained in the same
 * transaction as every change to the account's rows, so reads never sum the ledger.
 */
export interface AccountsTable {
  household_id: string
  id: string
  name: string
  type: AccountType
  subtype: string | null
  currency: string
  status: Defaulted<AccountStatus>
  group_name: string
  position: Defaulted<number>
  bank_fed: Defaulted<boolean>
  /** A credit card's payment due day of the month (1-31, the month's last day when shorter). */
  payment_due_day: ColumnType<number | null, number | null | undefined, number | null>
  /** The bank's identity of the account as its files state it (OFX `BANKID/ACCTID`, camt.053 IBAN). */
  bank_account: ColumnType<string | null, string | null | undefined, string | null>
  balance_cents: Defaulted<number>
  cleared_balance_cents: Defaulted<number>
  closed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  created_at: Timestamp
  updated_at: Timestamp
  deleted_at: SoftDelete
}

/**
 * One movement of money on one account. A bank row folded into its hand-entered twin keeps
 * its own row with `merged_into_id` set (hidden and outside balances), and the survivor keeps
 * what it had before the match in `prematch_*`, so unmatch restores both exactly.
 */
export interface TransactionsTable {
  household_id: string
  id: string
  account_id: string
  date: string
  amount_cents: number
  payee_id: string | null
  category_id: string | null
  memo: string | null
  status: TransactionStatus
  source: TransactionSource
  kind: Defaulted<TransactionKind>
  imported_id: string | null
  /** The payee text the bank sent with an imported row, kept as it came; null on other rows. */
  imported_payee: ColumnType<string | null, string | null | undefined, string | null>
  transfer_group_id: string | null
  needs_review: Defaulted<boolean>
  suggested_category_id: string | null
  suggestion_confidence: number | null
  suggestion_reason: string | null
  possible_duplicate: Defaulted<boolean>
  matched_transaction_id: string | null
  merged_into_id: string | null
  prematch_date: string | null
  prematch_status: TransactionStatus | null
  /** Set on a booked recurrence occurrence (`recurrence:<id>:<date>`); unique in the household. */
  external_id: ColumnType<string | null, string | null | undefined, string | null>
  created_at: Timestamp
  updated_at: Timestamp
  deleted_at: SoftDelete
}

/** One part of a split transaction; the parts of a row always sum to its amount. */
export interface TransactionSplitsTable {
  household_id: string
  id: string
  transaction_id: string
  position: number
  amount_cents: number
  category_id: string | null
  payee_id: string | null
  memo: string | null
}

/** A tag on a transaction; `id` is `<transaction_id>:<tag_id>` so the change log can key it. */
export interface TransactionTagsTable {
  household_id: string
  id: string
  transaction_id: string
  tag_id: string
}

/** A flag on a transaction; `id` is `<transaction_id>:<flag_id>`. */
export interface TransactionFlagsTable {
  household_id: string
  id: string
  transaction_id: string
  flag_id: string
}

/** How many units of `to_currency` one unit of `from_currency` buys; `rate` is an exact decimal string. */
export interface ExchangeRatesTable {
  household_id: string
  id: string
  from_currency: string
  to_currency: string
  rate: string
  created_at: Timestamp
  updated_at: Timestamp
}

/** Accounts, transactions and what hangs off them. */
export type LedgerTables = {
  accounts: AccountsTable
  transactions: TransactionsTable
  transaction_splits: TransactionSplitsTable
  transaction_tags: TransactionTagsTable
  transaction_flags: TransactionFlagsTable
  exchange_rates: ExchangeRatesTable
}

export type AccountRow = Selectable<AccountsTable>
export type TransactionRow = Selectable<TransactionsTable>
export type NewTransactionRow = Insertable<TransactionsTable>
export type SplitRow = Selectable<TransactionSplitsTable>
export type ExchangeRateRow = Selectable<ExchangeRatesTable>
