import {
  convertAccount,
  createAccount,
  deleteAccount,
  reorderAccounts,
  updateAccount,
} from './accounts/mutators.ts'
import { accountBalanceHistory, getAccount, listAccounts } from './accounts/queries.ts'
import { closeAccount, reconcileAccount, reopenAccount } from './accounts/reconcile.ts'
import { deleteExchangeRate, upsertExchangeRate } from './exchange-rates/mutators.ts'
import { listExchangeRates } from './exchange-rates/queries.ts'
import { matchCandidates, transferCandidates } from './transactions/candidates.ts'
import { listTransactions } from './transactions/list.ts'
import { defineBulkCreateTransactions } from './transactions/mutators/bulk-create.ts'
import { bulkUpdateTransactions } from './transactions/mutators/bulk-update.ts'
import { defineCreateTransaction } from './transactions/mutators/create.ts'
import { deleteTransaction, removeTransactionTag } from './transactions/mutators/delete.ts'
import { dismissMatch, matchTransaction, unmatchTransaction } from './transactions/mutators/match.ts'
import {
  defineAcceptSuggestion,
  defineRejectSuggestion,
  suggestCategory,
} from './transactions/mutators/suggestion.ts'
import { createTransfer, linkTransfer, unlinkTransfer } from './transactions/mutators/transfer.ts'
import { defineUpdateTransaction } from './transactions/mutators/update.ts'
import type { LedgerHooks } from './transactions/pipeline.ts'
import { getTransaction } from './transactions/queries.ts'
import { dailySummary, stalePendingCount } from './transactions/summary.ts'

/**
 * The ledger domain's operations by noun and verb; the registry names each after its path.
 * `hooks` carries what other domains plug in (the transaction pipeline), so the ledger imports
 * none of them.
 */
export function ledgerOperations(hooks: LedgerHooks) {
  return {
    accounts: {
      balanceHistory: accountBalanceHistory,
      close: closeAccount,
      convert: convertAccount,
      create: createAccount,
      delete: deleteAccount,
      get: getAccount,
      list: listAccounts,
      reconcile: reconcileAccount,
      reopen: reopenAccount,
      reorder: reorderAccounts,
      update: updateAccount,
    },
    exchangeRates: {
      delete: deleteExchangeRate,
      list: listExchangeRates,
      upsert: upsertExchangeRate,
    },
    transactions: {
      acceptSuggestion: defineAcceptSuggestion(hooks),
      bulkCreate: defineBulkCreateTransactions(hooks),
      bulkUpdate: bulkUpdateTransactions,
      create: defineCreateTransaction(hooks),
      dailySummary: dailySummary,
      delete: deleteTransaction,
      dismissMatch: dismissMatch,
      get: getTransaction,
      linkTransfer: linkTransfer,
      list: listTransactions,
      match: matchTransaction,
      matchCandidates: matchCandidates,
      rejectSuggestion: defineRejectSuggestion(hooks),
      removeTag: removeTransactionTag,
      stalePendingCount: stalePendingCount,
      suggestCategory: suggestCategory,
      transfer: createTransfer,
      transferCandidates: transferCandidates,
      unlinkTransfer: unlinkTransfer,
      unmatch: unmatchTransaction,
      update: defineUpdateTransaction(hooks),
    },
  }
}
