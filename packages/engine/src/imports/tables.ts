import type { ColumnType, Selectable } from 'kysely'
import type { CsvMapping } from './parse/csv.ts'

type Timestamp = ColumnType<Date, Date | string, Date | string>

/** A bank row folded into its hand-entered twin by an import: undo separates them again. */
export interface ImportedMatch {
  transactionId: string
  matchedTransactionId: string
}

/** One committed bank file: what it created and matched, so the whole batch can be undone. */
export interface ImportBatchesTable {
  household_id: string
  id: string
  account_id: string
  format: string
  /** The rows it created that stand on their own (new and ambiguous rows). */
  transaction_ids: ColumnType<string[], string[], string[]>
  /** Its bank rows folded into hand-entered twins. */
  matched: ColumnType<ImportedMatch[], string, string>
  duplicate_count: number
  refused_count: number
  file_ledger_balance_cents: ColumnType<number | null, number | null | undefined, number | null>
  created_at: Timestamp
  undone_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
}

/** The CSV mapping an account's imports reuse, keyed by the account's id. */
export interface ImportMappingsTable {
  household_id: string
  /** The account's id: one mapping per account. */
  id: string
  mapping: ColumnType<CsvMapping, string, string>
  updated_at: Timestamp
}

/** The imports domain's tables. */
export type ImportTables = {
  import_batches: ImportBatchesTable
  import_mappings: ImportMappingsTable
}

export type ImportBatchRow = Selectable<ImportBatchesTable>
