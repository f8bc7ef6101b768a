import type {
  SplitRow,
  TransactionKind,
  TransactionRow,
  TransactionSource,
  TransactionStatus,
} from '../tables.ts'

/** One part of a split transaction as the API shows it. */
export interface Split {
  id: string
  amountCents: string
  categoryId: string | null
  payeeId: string | null
  memo: string | null
}

/** A transaction as the API shows it: money as decimal integer strings, with its splits, tags and flags. */
export interface Transaction {
  id: string
  accountId: string
  date: string
  amountCents: string
  payeeId: string | null
  categoryId: string | null
  memo: string | null
  status: TransactionStatus
  source: TransactionSource
  kind: TransactionKind
  importedId: string | null
  externalId: string | null
  /** The payee text the bank sent with an imported row, as it came; null on other rows. */
  importedPayee: string | null
  transferGroupId: string | null
  needsReview: boolean
  possibleDuplicate: boolean
  matchedTransactionId: string | null
  suggestedCategoryId: string | null
  suggestionConfidence: number | null
  suggestionReason: string | null
  splits: Split[]
  tagIds: string[]
  flagIds: string[]
  createdAt: string
  updatedAt: string
}

/** What hangs off a row in the link tables, loaded in bulk for a page of rows. */
export interface TransactionDetails {
  splits: SplitRow[]
  tagIds: string[]
  flagIds: string[]
}

export const NO_DETAILS: TransactionDetails = { splits: [], tagIds: [], flagIds: [] }

export function toSplit(row: SplitRow): Split {
  return {
    id: row.id,
    amountCents: String(row.amount_cents),
    categoryId: row.category_id,
    payeeId: row.payee_id,
    memo: row.memo,
  }
}

export function toTransaction(row: TransactionRow, details: TransactionDetails = NO_DETAILS): Transaction {
  return {
    id: row.id,
    accountId: row.account_id,
    date: row.date,
    amountCents: String(row.amount_cents),
    payeeId: row.payee_id,
    categoryId: row.category_id,
    memo: row.memo,
    status: row.status,
    source: row.source,
    kind: row.kind,
    importedId: row.imported_id,
    externalId: row.external_id ?? null,
    importedPayee: row.imported_payee ?? null,
    transferGroupId: row.transfer_group_id,
    needsReview: row.needs_review,
    possibleDuplicate: row.possible_duplicate,
    matchedTransactionId: row.matched_transaction_id,
    suggestedCategoryId: row.suggested_category_id,
    suggestionConfidence: row.suggestion_confidence,
    suggestionReason: row.suggestion_reason,
    splits: [...details.splits].sort((a, b) => a.position - b.position).map(toSplit),
    tagIds: [...details.tagIds].sort(),
    flagIds: [...details.flagIds].sort(),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

/** Hand-entered means not from a bank feed: manual, ai, recurring and split rows alike. */
export function isHandEntered(row: Pick<TransactionRow, 'source' | 'kind'>): boolean {
  return row.kind === 'normal' && row.source !== 'imported'
}

/** A bank row: one that arrived through an import. */
export function isBankRow(row: Pick<TransactionRow, 'source' | 'kind'>): boolean {
  return row.kind === 'normal' && row.source === 'imported'
}
