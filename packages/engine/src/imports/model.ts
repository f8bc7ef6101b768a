import type { ImportBatchRow, ImportedMatch } from './tables.ts'

/** An import batch as the API shows it. */
export interface ImportBatch {
  id: string
  accountId: string
  format: string
  /** Rows the import created that stand on their own. */
  transactionIds: string[]
  /** Bank rows folded into their hand-entered twins. */
  matched: ImportedMatch[]
  createdCount: number
  matchedCount: number
  duplicateCount: number
  refusedCount: number
  fileLedgerBalanceCents: string | null
  createdAt: string
  undoneAt: string | null
}

export function toImportBatch(row: ImportBatchRow): ImportBatch {
  const matched = typeof row.matched === 'string' ? JSON.parse(row.matched) : row.matched
  return {
    id: row.id,
    accountId: row.account_id,
    format: row.format,
    transactionIds: row.transaction_ids,
    matched,
    createdCount: row.transaction_ids.length,
    matchedCount: matched.length,
    duplicateCount: row.duplicate_count,
    refusedCount: row.refused_count,
    fileLedgerBalanceCents:
      row.file_ledger_balance_cents === null ? null : String(row.file_ledger_balance_cents),
    createdAt: row.created_at.toISOString(),
    undoneAt: row.undone_at?.toISOString() ?? null,
  }
}
