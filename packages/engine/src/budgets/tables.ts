import type { ColumnType, Selectable } from 'kysely'

type Timestamp = ColumnType<Date, Date | string, Date | string>

/** How a history entry changed its cell. */
export type BudgetHistoryKind = 'assign' | 'move' | 'copy' | 'reset' | 'auto_assign'

/**
 * What one category is assigned in one month. `id` is `<YYYY-MM>:<category id>`, the same on
 * every device, so two devices assigning one cell offline write one row.
 */
export interface BudgetCellsTable {
  household_id: string
  id: string
  month: string
  category_id: string
  assigned_cents: number
  created_at: Timestamp
  updated_at: Timestamp
}

/** One change to one cell: an assignment, one side of a move, a copy, a reset or an auto-assign. */
export interface BudgetHistoryTable {
  household_id: string
  id: string
  month: string
  category_id: string
  kind: BudgetHistoryKind
  previous_cents: number
  assigned_cents: number
  delta_cents: number
  /** The other category of a move. */
  counterpart_category_id: string | null
  user_id: string | null
  created_at: Timestamp
}

/** A category that is overrun in a month and was announced with `budget.overrun`. */
export interface BudgetOverrunsTable {
  household_id: string
  id: string
  month: string
  category_id: string
  created_at: Timestamp
}

/**
 * The ledger summed per month, account and category (`id` is `<YYYY-MM>:<account>:<category or
 * empty>`), kept by triggers on transactions and splits; transfer legs are left out.
 */
export interface BudgetActivityTable {
  household_id: string
  id: string
  month: string
  account_id: string
  category_id: string | null
  amount_cents: number
}

/**
 * A month's closing, kept so a snapshot need not roll the budget forward from its first month:
 * `state` is the JSON of `MonthClosing` (closings.ts). Each store computes and keeps its own;
 * triggers forget a household's closings from the first month a change reaches.
 */
export interface BudgetClosingsTable {
  household_id: string
  month: string
  state: string
}

/** The budget's tables. */
export type BudgetTables = {
  budget_activity: BudgetActivityTable
  budget_closings: BudgetClosingsTable
  budget_cells: BudgetCellsTable
  budget_history: BudgetHistoryTable
  budget_overruns: BudgetOverrunsTable
}

export type BudgetCellRow = Selectable<BudgetCellsTable>
export type BudgetHistoryRow = Selectable<BudgetHistoryTable>
