import { TransactionPageSchema, TransactionSchema } from '@hearth/contracts'
import { operations, runMutation, runQuery, type Store } from '@hearth/engine'
import { OpenAPIHono } from '@hono/zod-openapi'
import { ulid } from 'ulidx'
import { type AppEnv, householdContext } from '../http/env.ts'
import { apiRoute, HouseholdParams, jsonBody, jsonResponse, z } from '../http/route.ts'
import { transactionCollectionRoutes } from './transaction-collection.ts'
import { transactionMatchingRoutes } from './transaction-matching.ts'
import { NewTransactionBody, TransactionParams, tags } from './transaction-requests.ts'
import { transferRoutes } from './transfers.ts'

/** The update body: the engine's update arguments without the id, which comes from the path. */
const UpdateTransactionBody = z.strictObject(operations.transactions.update.args.shape).omit({ id: true })

const createTransaction = apiRoute({
  method: 'post',
  path: '/households/{householdId}/transactions',
  tags,
  summary: 'Create a transaction',
  description:
    'On an open account, with optional `splits` (two or more parts summing to `amountCents`, else 400 ' +
    '`SPLIT_SUM_MISMATCH`), `tagIds` and `flagIds`. `payeeName` finds the payee by normalized name or creates ' +
    'it. Status defaults to cleared for imported rows, pending otherwise. An `importedId` the account already ' +
    'holds answers 409 `DUPLICATE_IMPORTED_ID` (bulk create skips such rows instead).',
  scope: 'write:transactions',
  request: { params: HouseholdParams, body: jsonBody(NewTransactionBody) },
  responses: {
    201: jsonResponse(TransactionSchema, 'The new transaction, with its splits, tags and flags.'),
  },
})

const listTransactions = apiRoute({
  method: 'get',
  path: '/households/{householdId}/transactions',
  tags,
  summary: 'List transactions',
  description:
    'Newest first (date descending, then id descending), cursor paginated: rows inserted between pages are ' +
    'never skipped or repeated on later pages. Every filter combines with AND. `statuses` supersedes `status`; ' +
    '`tagId` adds to `tagIds`; `tagMode` (default any) applies to them. `search` matches payee name, memo and ' +
    'category name (of the row or its splits), ignoring case. `limit` outside 1-100 answers 400; a cursor this ' +
    'list did not issue answers 400 `INVALID_CURSOR`.',
  scope: 'read:transactions',
  request: { params: HouseholdParams, query: operations.transactions.list.args },
  responses: { 200: jsonResponse(TransactionPageSchema, 'One page of transactions.') },
})

const getTransaction = apiRoute({
  method: 'get',
  path: '/households/{householdId}/transactions/{transactionId}',
  tags,
  summary: 'Get a transaction with its splits',
  scope: 'read:transactions',
  request: { params: TransactionParams },
  responses: { 200: jsonResponse(TransactionSchema, 'The transaction.') },
})

const updateTransaction = apiRoute({
  method: 'patch',
  path: '/households/{householdId}/transactions/{transactionId}',
  tags,
  summary: 'Update a transaction',
  description:
    '`splits`, `tagIds` and `flagIds` replace the whole list when supplied. A reconciled row answers 409 ' +
    '`TRANSACTION_RECONCILED` to a change of amount, date, account or splits unless the same request sets ' +
    '`status` to cleared, which is the one way to unlock it. On a transfer leg, an amount change moves the other ' +
    'leg to the opposite amount.',
  scope: 'write:transactions',
  request: { params: TransactionParams, body: jsonBody(UpdateTransactionBody) },
  responses: { 200: jsonResponse(TransactionSchema, 'The updated transaction.') },
})

const deleteTransaction = apiRoute({
  method: 'delete',
  path: '/households/{householdId}/transactions/{transactionId}',
  tags,
  summary: 'Delete a transaction',
  description:
    'Soft delete. Deleting a transfer leg deletes both legs. A reconciled row (or leg) answers 409 `TRANSACTION_RECONCILED`.',
  scope: 'write:transactions',
  request: { params: TransactionParams },
  responses: { 204: { description: 'Deleted.' } },
})

const removeTag = apiRoute({
  method: 'delete',
  path: '/households/{householdId}/transactions/{transactionId}/tags/{tagId}',
  tags,
  summary: 'Remove one tag from a transaction',
  description: 'Removing a tag the row does not carry changes nothing. An unknown tag answers 404.',
  scope: 'write:transactions',
  request: { params: TransactionParams.extend({ tagId: z.string() }) },
  responses: { 204: { description: 'Removed.' } },
})

const acceptSuggestion = apiRoute({
  method: 'post',
  path: '/households/{householdId}/transactions/{transactionId}/accept-suggestion',
  tags,
  summary: 'Accept the suggested category',
  description:
    'The suggested category becomes the category; the suggestion fields and `needsReview` are cleared. No ' +
    'suggestion answers 409 `NO_SUGGESTION`; a deleted suggested category 409 `SUGGESTION_STALE`.',
  scope: 'write:transactions',
  request: { params: TransactionParams },
  responses: { 200: jsonResponse(TransactionSchema, 'The categorized transaction.') },
})

const rejectSuggestion = apiRoute({
  method: 'post',
  path: '/households/{householdId}/transactions/{transactionId}/reject-suggestion',
  tags,
  summary: 'Reject the suggested category',
  description:
    'The suggestion fields and `needsReview` are cleared; the row stays uncategorized. No suggestion answers 409 `NO_SUGGESTION`.',
  scope: 'write:transactions',
  request: { params: TransactionParams },
  responses: { 200: jsonResponse(TransactionSchema, 'The transaction.') },
})

/** The single-row routes; fixed paths such as /transactions/daily-summary are mounted before them. */
function transactionItemRoutes(store: Store) {
  return new OpenAPIHono<AppEnv>()
    .openapi(createTransaction, async (c) => {
      const body = c.req.valid('json')
      const { result } = await runMutation(
        store.db,
        operations.transactions.create,
        { ...body, id: body.id ?? ulid() },
        householdContext(c.var),
      )
      return c.json(result, 201)
    })
    .openapi(listTransactions, async (c) => {
      const page = await runQuery(
        store.db,
        operations.transactions.list,
        c.req.valid('query'),
        householdContext(c.var),
      )
      return c.json(page, 200)
    })
    .openapi(getTransaction, async (c) => {
      const id = c.req.valid('param').transactionId
      const transaction = await runQuery(
        store.db,
        operations.transactions.get,
        { id },
        householdContext(c.var),
      )
      return c.json(transaction, 200)
    })
    .openapi(updateTransaction, async (c) => {
      const { result } = await runMutation(
        store.db,
        operations.transactions.update,
        { ...c.req.valid('json'), id: c.req.valid('param').transactionId },
        householdContext(c.var),
      )
      return c.json(result, 200)
    })
    .openapi(deleteTransaction, async (c) => {
      const id = c.req.valid('param').transactionId
      await runMutation(store.db, operations.transactions.delete, { id }, householdContext(c.var))
      return c.body(null, 204)
    })
    .openapi(removeTag, async (c) => {
      const { transactionId, tagId } = c.req.valid('param')
      await runMutation(
        store.db,
        operations.transactions.removeTag,
        { id: transactionId, tagId },
        householdContext(c.var),
      )
      return c.body(null, 204)
    })
    .openapi(acceptSuggestion, async (c) => {
      const id = c.req.valid('param').transactionId
      const { result } = await runMutation(
        store.db,
        operations.transactions.acceptSuggestion,
        { id },
        householdContext(c.var),
      )
      return c.json(result, 200)
    })
    .openapi(rejectSuggestion, async (c) => {
      const id = c.req.valid('param').transactionId
      const { result } = await runMutation(
        store.db,
        operations.transactions.rejectSuggestion,
        { id },
        householdContext(c.var),
      )
      return c.json(result, 200)
    })
}

/**
 * Every transactions route. Fixed paths (transfer, bulk, bulk-update, daily-summary,
 * stale-pending-count) are mounted first so `{transactionId}` never captures them.
 */
export function transactionRoutes(store: Store) {
  return new OpenAPIHono<AppEnv>()
    .route('/', transactionCollectionRoutes(store))
    .route('/', transferRoutes(store))
    .route('/', transactionMatchingRoutes(store))
    .route('/', transactionItemRoutes(store))
}
