import { TransactionListSchema, TransactionSchema, UnmatchResultSchema } from '@hearth/contracts'
import { operations, runMutation, runQuery, type Store } from '@hearth/engine'
import { OpenAPIHono } from '@hono/zod-openapi'
import { type AppEnv, householdContext } from '../http/env.ts'
import { apiRoute, jsonBody, jsonResponse } from '../http/route.ts'
import { TransactionParams, tags } from './transaction-requests.ts'

const matchCandidates = apiRoute({
  method: 'get',
  path: '/households/{householdId}/transactions/{transactionId}/match-candidates',
  tags,
  summary: 'Twins a row could be matched with',
  description:
    'Same account (so same currency) and amount, dated within 7 days, unmatched, of the other kind: a bank ' +
    'import lists hand-entered twins, a hand-entered row lists bank imports. Nearest date first, at most 50.',
  scope: 'read:transactions',
  request: { params: TransactionParams },
  responses: { 200: jsonResponse(TransactionListSchema, 'The candidates.') },
})

const matchTransaction = apiRoute({
  method: 'post',
  path: '/households/{householdId}/transactions/{transactionId}/match',
  tags,
  summary: 'Match a bank import with its hand-entered twin',
  description:
    'Either row may be named in the path, the other as `candidateId`. The hand-entered row survives with its ' +
    'payee, category, memo, tags and splits, takes the bank date and becomes cleared; the bank row is folded in ' +
    '(hidden, outside balances). Undone by unmatch. Two rows of one kind, another account, another amount or ' +
    'more than 7 days apart answer 400 `NOT_A_MATCH_CANDIDATE`; a row already matched 409 ' +
    '`TRANSACTION_ALREADY_MATCHED`; a reconciled row 409 `TRANSACTION_RECONCILED`.',
  scope: 'write:transactions',
  request: {
    params: TransactionParams,
    body: jsonBody(operations.transactions.match.args.omit({ id: true })),
  },
  responses: {
    200: jsonResponse(TransactionSchema, 'The surviving row; `matchedTransactionId` names the bank row.'),
  },
})

const unmatchTransaction = apiRoute({
  method: 'post',
  path: '/households/{householdId}/transactions/{transactionId}/unmatch',
  tags,
  summary: 'Separate a matched pair',
  description:
    'Either row of the pair may be named. The bank row returns as its own row; the hand-entered row regains its ' +
    'date and status from before the match. A reconciled row answers 409 `TRANSACTION_RECONCILED`; a row that ' +
    'is not matched 409 `NOT_MATCHED`.',
  scope: 'write:transactions',
  request: { params: TransactionParams },
  responses: { 200: jsonResponse(UnmatchResultSchema, 'Both rows as they are again.') },
})

const dismissMatch = apiRoute({
  method: 'post',
  path: '/households/{householdId}/transactions/{transactionId}/dismiss-match',
  tags,
  summary: 'Clear the possible-duplicate marker',
  description: 'Clears the marker an ambiguous import left on a bank row. Idempotent.',
  scope: 'write:transactions',
  request: { params: TransactionParams },
  responses: { 200: jsonResponse(TransactionSchema, 'The row without the marker.') },
})

/** Matching a bank import with its hand-entered twin: candidates, match, unmatch, dismiss. */
export function transactionMatchingRoutes(store: Store) {
  return new OpenAPIHono<AppEnv>()
    .openapi(matchCandidates, async (c) => {
      const id = c.req.valid('param').transactionId
      const list = await runQuery(
        store.db,
        operations.transactions.matchCandidates,
        { id },
        householdContext(c.var),
      )
      return c.json(list, 200)
    })
    .openapi(matchTransaction, async (c) => {
      const { result } = await runMutation(
        store.db,
        operations.transactions.match,
        { ...c.req.valid('json'), id: c.req.valid('param').transactionId },
        householdContext(c.var),
      )
      return c.json(result, 200)
    })
    .openapi(unmatchTransaction, async (c) => {
      const id = c.req.valid('param').transactionId
      const { result } = await runMutation(
        store.db,
        operations.transactions.unmatch,
        { id },
        householdContext(c.var),
      )
      return c.json(result, 200)
    })
    .openapi(dismissMatch, async (c) => {
      const id = c.req.valid('param').transactionId
      const { result } = await runMutation(
        store.db,
        operations.transactions.dismissMatch,
        { id },
        householdContext(c.var),
      )
      return c.json(result, 200)
    })
}
