import {
  BulkCreateResultSchema,
  BulkUpdateResultSchema,
  DailySummarySchema,
  StalePendingCountSchema,
} from '@hearth/contracts'
import { operations, runMutation, runQuery, type Store } from '@hearth/engine'
import { OpenAPIHono } from '@hono/zod-openapi'
import { ulid } from 'ulidx'
import { type AppEnv, householdContext } from '../http/env.ts'
import { apiRoute, HouseholdParams, jsonBody, jsonResponse, z } from '../http/route.ts'
import { NewTransactionBody, tags } from './transaction-requests.ts'

/** The spec's bound on one bulk request; the engine checks it again. */
const BULK_MAX = 500

const bulkCreate = apiRoute({
  method: 'post',
  path: '/households/{householdId}/transactions/bulk',
  tags,
  summary: 'Create up to 500 transactions at once',
  description:
    'All or nothing: one bad row rejects the request, and the problem names its `index` (field paths read ' +
    '`transactions.<index>.<field>`). A row whose `importedId` its account already holds (or that repeats an ' +
    'earlier row of the request) is skipped and counted, so re-running a bank import never duplicates. An ' +
    'imported row with exactly one hand-entered twin (same account and amount, within 7 days) is matched into ' +
    'it; with several, it keeps the possible-duplicate marker. 501 rows answer 400.',
  scope: 'write:transactions',
  request: {
    params: HouseholdParams,
    body: jsonBody(
      z.strictObject({
        transactions: z
          .array(NewTransactionBody)
          .min(1)
          .max(BULK_MAX, `At most ${BULK_MAX} transactions per request.`),
      }),
    ),
  },
  responses: { 201: jsonResponse(BulkCreateResultSchema, 'What was created, skipped and matched.') },
})

const bulkUpdate = apiRoute({
  method: 'patch',
  path: '/households/{householdId}/transactions/bulk-update',
  tags,
  summary: 'Apply one patch to many transactions',
  description:
    'Up to 500 distinct `ids` and one `patch` (categoryId, status, memo, payeeId, flagIds replacing the flags, ' +
    'addTagIds, removeTagIds), all or nothing. Reconciled rules apply: `reconciled` is never set here, and a ' +
    'reconciled row refuses `pending` with 409 `TRANSACTION_RECONCILED`. An unknown id answers 404 naming its index.',
  scope: 'write:transactions',
  request: { params: HouseholdParams, body: jsonBody(operations.transactions.bulkUpdate.args) },
  responses: { 200: jsonResponse(BulkUpdateResultSchema, 'How many rows were patched.') },
})

const dailySummary = apiRoute({
  method: 'get',
  path: '/households/{householdId}/transactions/daily-summary',
  tags,
  summary: 'Money in, money out and count per day',
  description:
    'One entry per day from `fromDate` to `toDate` (default: the 30 days ending on your local day, or starting ' +
    "on `fromDate`), at most 92 days (400 `WINDOW_TOO_LARGE`). Figures are converted to the household's base " +
    'currency with its exchange rates (see /exchange-rates), rounding half away from zero per day and currency; ' +
    '`byCurrency` adds face-value totals per currency, and a currency without a rate is listed in ' +
    '`unconvertedCurrencies`, never guessed. Transfer legs and system rows (opening balances, adjustments) are ' +
    'left out. `accountId` narrows to one account.',
  scope: 'read:transactions',
  request: { params: HouseholdParams, query: operations.transactions.dailySummary.args },
  responses: { 200: jsonResponse(DailySummarySchema, 'The summary.') },
})

const stalePendingCount = apiRoute({
  method: 'get',
  path: '/households/{householdId}/transactions/stale-pending-count',
  tags,
  summary: 'Count hand-entered rows still pending too long',
  description:
    'Hand-entered (not imported) rows still pending at least `days` days (default 7) after their date, counted ' +
    'on your local day, on bank-fed accounts only. `accountId` narrows to one account.',
  scope: 'read:transactions',
  request: { params: HouseholdParams, query: operations.transactions.stalePendingCount.args },
  responses: { 200: jsonResponse(StalePendingCountSchema, 'The count.') },
})

/**
 * Routes on the transactions collection with fixed paths: bulk create and update, daily
 * summary and stale-pending count.
 */
export function transactionCollectionRoutes(store: Store) {
  return new OpenAPIHono<AppEnv>()
    .openapi(bulkCreate, async (c) => {
      const { transactions } = c.req.valid('json')
      const { result } = await runMutation(
        store.db,
        operations.transactions.bulkCreate,
        { transactions: transactions.map((t) => ({ ...t, id: t.id ?? ulid() })) },
        householdContext(c.var),
      )
      return c.json(result, 201)
    })
    .openapi(bulkUpdate, async (c) => {
      const { result } = await runMutation(
        store.db,
        operations.transactions.bulkUpdate,
        c.req.valid('json'),
        householdContext(c.var),
      )
      return c.json(result, 200)
    })
    .openapi(dailySummary, async (c) => {
      const summary = await runQuery(
        store.db,
        operations.transactions.dailySummary,
        c.req.valid('query'),
        householdContext(c.var),
      )
      return c.json(summary, 200)
    })
    .openapi(stalePendingCount, async (c) => {
      const count = await runQuery(
        store.db,
        operations.transactions.stalePendingCount,
        c.req.valid('query'),
        householdContext(c.var),
      )
      return c.json(count, 200)
    })
}
