/** Every ledger mutator, keyed for the registry. */
export {
  convertAccount,
  createAccount,
  deleteAccount,
  reorderAccounts,
  updateAccount,
} from './accounts/mutators.ts'
export { closeAccount, reconcileAccount, reopenAccount } from './accounts/reconcile.ts'
export { deleteExchangeRate, upsertExchangeRate } from './exchange-rates/mutators.ts'
export { bulkCreateTransactions } from './transactions/mutators/bulk-create.ts'
export { bulkUpdateTransactions } from './transactions/mutators/bulk-update.ts'
export { createTransaction } from './transactions/mutators/create.ts'
export { deleteTransaction, removeTransactionTag } from './transactions/mutators/delete.ts'
export { dismissMatch, matchTransaction, unmatchTransaction } from './transactions/mutators/match.ts'
export { acceptSuggestion, rejectSuggestion, suggestCategory } from './transactions/mutators/suggestion.ts'
export { createTransfer, linkTransfer, unlinkTransfer } from './transactions/mutators/transfer.ts'
export { updateTransaction } from './transactions/mutators/update.ts'
