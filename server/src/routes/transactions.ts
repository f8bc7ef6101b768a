import { TransactionPageSchema, TransactionSchema } from '@hearth/contracts'
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT, operations } from '@hearth/engine'
import { operationRoute } from '../http/operation-route.ts'
import { transactionCollectionRoutes } from './transaction-collection.ts'
import { transactionMatchingRoutes } from './transaction-matching.ts'
import { transferRoutes } from './transfers.ts'

const tag = 'Transactions'
const transactions = '/households/{householdId}/transactions'
const transaction = `${transactions}/{transactionId}`

/** The single-row routes and the list; fixed paths such as /transactions/daily-summary go before them. */
const transactionItemRoutes = [
  operationRoute(operations.transactions.create, {
    method: 'post',
    path: transactions,
    status: 201,
    tag,
    summary: 'Create a transaction',
    clientIds: ['id'],
    response: TransactionSchema,
    responseDescription: 'The new transaction, with its splits, tags and flags.',
    notes:
      'On an open account, with optional `splits` (two or more parts summing to `amountCents`, else 400 ' +
      '`SPLIT_SUM_MISMATCH`), `tagIds` and `flagIds`. `payeeName` finds the payee by normalized name or creates ' +
      'it. Status defaults to cleared for imported rows, pending otherwise. An `importedId` the account already ' +
      'holds answers 409 `DUPLICATE_IMPORTED_ID` (bulk create skips such rows instead).',
    errors: {
      400: ['SPLIT_SUM_MISMATCH', 'SPLIT_CATEGORY_CONFLICT'],
      409: ['DUPLICATE_IMPORTED_ID', 'ACCOUNT_CLOSED', 'ID_ALREADY_EXISTS'],
    },
  }),
  operationRoute(operations.transactions.list, {
    method: 'get',
    path: transactions,
    status: 200,
    tag,
    summary: 'List transactions',
    response: TransactionPageSchema,
    responseDescription: 'One page of transactions.',
    notes:
      'Newest first (date descending, then id descending), cursor paginated: rows inserted between pages are ' +
      'never skipped or repeated on later pages. Every filter combines with AND. `statuses` supersedes `status`; ' +
      '`tagId` adds to `tagIds`; `tagMode` (default any) applies to them. `search` matches payee name, memo and ' +
      `category name (of the row or its splits), ignoring case. \`limit\` defaults to ${LIST_DEFAULT_LIMIT}; one ` +
      `above ${LIST_MAX_LIMIT} is read as ${LIST_MAX_LIMIT}, and 0, a negative or a fraction answers 400. A cursor ` +
      'this list did not issue answers 400 `INVALID_CURSOR`.',
    errors: { 400: ['INVALID_CURSOR'] },
  }),
  operationRoute(operations.transactions.get, {
    method: 'get',
    path: transaction,
    status: 200,
    tag,
    summary: 'Get a transaction with its splits',
    response: TransactionSchema,
    responseDescription: 'The transaction.',
  }),
  operationRoute(operations.transactions.update, {
    method: 'patch',
    path: transaction,
    status: 200,
    tag,
    summary: 'Update a transaction',
    response: TransactionSchema,
    responseDescription: 'The updated transaction.',
    notes:
      '`splits`, `tagIds` and `flagIds` replace the whole list when supplied. A reconciled row answers 409 ' +
      '`TRANSACTION_RECONCILED` to a change of amount, date, account or splits unless the same request sets ' +
      '`status` to cleared, which is the one way to unlock it. On a transfer leg, an amount change moves the other ' +
      'leg to the opposite amount.',
    errors: {
      400: [
        'SPLIT_SUM_MISMATCH',
        'SPLIT_CATEGORY_CONFLICT',
        'STATUS_NOT_ALLOWED',
        'TRANSFER_SAME_ACCOUNT',
        'TRANSFER_CURRENCY_MISMATCH',
      ],
      409: ['TRANSACTION_RECONCILED', 'ACCOUNT_CLOSED', 'DUPLICATE_IMPORTED_ID'],
    },
  }),
  operationRoute(operations.transactions.delete, {
    method: 'delete',
    path: transaction,
    status: 204,
    tag,
    summary: 'Delete a transaction',
    responseDescription: 'Deleted.',
    notes:
      'Soft delete. Deleting a transfer leg deletes both legs. A reconciled row (or leg) answers 409 `TRANSACTION_RECONCILED`.',
    errors: { 409: ['TRANSACTION_RECONCILED'] },
  }),
  operationRoute(operations.transactions.removeTag, {
    method: 'delete',
    path: `${transaction}/tags/{tagId}`,
    status: 204,
    tag,
    summary: 'Remove one tag from a transaction',
    params: { transactionId: 'id', tagId: 'tagId' },
    responseDescription: 'Removed.',
    notes: 'Removing a tag the row does not carry changes nothing. An unknown tag answers 404.',
  }),
  operationRoute(operations.transactions.acceptSuggestion, {
    method: 'post',
    path: `${transaction}/accept-suggestion`,
    status: 200,
    tag,
    summary: 'Accept the suggested category',
    optionalBody: true,
    response: TransactionSchema,
    responseDescription: 'The categorized transaction.',
    notes:
      'The suggested category becomes the category; the suggestion fields and `needsReview` are cleared. No ' +
      'suggestion answers 409 `NO_SUGGESTION`; a deleted suggested category 409 `SUGGESTION_STALE`.',
    errors: { 409: ['NO_SUGGESTION', 'SUGGESTION_STALE'] },
  }),
  operationRoute(operations.transactions.rejectSuggestion, {
    method: 'post',
    path: `${transaction}/reject-suggestion`,
    status: 200,
    tag,
    summary: 'Reject the suggested category',
    optionalBody: true,
    response: TransactionSchema,
    responseDescription: 'The transaction.',
    notes:
      'The suggestion fields and `needsReview` are cleared; the row stays uncategorized. No suggestion answers 409 `NO_SUGGESTION`.',
    errors: { 409: ['NO_SUGGESTION'] },
  }),
]

/**
 * Every transactions route. Fixed paths (transfer, bulk, bulk-update, daily-summary,
 * stale-pending-count) come first so `{transactionId}` never captures them.
 */
export const transactionRoutes = [
  ...transactionCollectionRoutes,
  ...transferRoutes,
  ...transactionMatchingRoutes,
  ...transactionItemRoutes,
]
