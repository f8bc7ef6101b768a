import { TransactionListSchema } from '@hearth/contracts'
import { ledgerQueries, runQuery, type Store } from '@hearth/engine'
import { OpenAPIHono } from '@hono/zod-openapi'
import { type AppEnv, householdContext } from '../http/env.ts'
import { apiRoute, jsonResponse } from '../http/route.ts'
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

/** Matching a bank import with its hand-entered twin: candidates, match, unmatch, dismiss. */
export function transactionMatchingRoutes(store: Store) {
  return new OpenAPIHono<AppEnv>().openapi(matchCandidates, async (c) => {
    const id = c.req.valid('param').transactionId
    const list = await runQuery(store.db, ledgerQueries.matchCandidates, { id }, householdContext(c.var))
    return c.json(list, 200)
  })
}
