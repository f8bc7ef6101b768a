import {
  BulkCreateResultSchema,
  BulkUpdateResultSchema,
  DailySummarySchema,
  StalePendingCountSchema,
} from '@hearth/contracts'
import { BULK_MAX, newUlid, operations, UlidSchema } from '@hearth/engine'
import { z } from '@hono/zod-openapi'
import { operationRoute } from '../http/operation-route.ts'

const tag = 'Transactions'
const transactions = '/households/{householdId}/transactions'

/** The documented bulk body: the engine's rows, each with an `id` the route makes when it is left out. */
const BulkCreateBody = z.strictObject({
  transactions: z
    .array(
      z.strictObject({
        ...operations.transactions.create.args.shape,
        id: UlidSchema.optional().meta({
          description: 'Your own ULID for the new row; one is made if omitted.',
        }),
      }),
    )
    .min(1)
    .max(BULK_MAX, `At most ${BULK_MAX} transactions per request.`),
})

/** A row of a bulk body with its id filled; anything that is no object is left for the engine to refuse. */
function withId(row: unknown): unknown {
  const isRow = row !== null && typeof row === 'object' && !Array.isArray(row)
  return isRow && (row as { id?: unknown }).id === undefined ? { ...row, id: newUlid() } : row
}

/**
 * Routes on the transactions collection with fixed paths: bulk create and update, daily
 * summary and stale-pending count.
 */
export const transactionCollectionRoutes = [
  operationRoute(operations.transactions.bulkCreate, {
    method: 'post',
    path: `${transactions}/bulk`,
    status: 201,
    tag,
    summary: 'Create up to 500 transactions at once',
    input: BulkCreateBody,
    prepare: ({ query, body }) => {
      const { transactions: rows } = body as { transactions?: unknown }
      return {
        args: {
          ...query,
          ...(body as object),
          ...(Array.isArray(rows) && { transactions: rows.map(withId) }),
        },
      }
    },
    response: BulkCreateResultSchema,
    responseDescription: 'What was created, skipped and matched.',
    notes:
      'All or nothing: one bad row rejects the request, and the problem names its `index` (field paths read ' +
      '`transactions.<index>.<field>`). A row whose `importedId` its account already holds (or that repeats an ' +
      'earlier row of the request) is skipped and counted, so re-running a bank import never duplicates. An ' +
      'imported row with exactly one hand-entered twin (same account and amount, within 7 days) is matched into ' +
      'it; with several, it keeps the possible-duplicate marker. 501 rows answer 400.',
    errors: {
      400: ['SPLIT_SUM_MISMATCH', 'SPLIT_CATEGORY_CONFLICT', 'DUPLICATE_ID'],
      409: ['ACCOUNT_CLOSED', 'ID_ALREADY_EXISTS'],
    },
  }),
  operationRoute(operations.transactions.bulkUpdate, {
    method: 'patch',
    path: `${transactions}/bulk-update`,
    status: 200,
    tag,
    summary: 'Apply one patch to many transactions',
    response: BulkUpdateResultSchema,
    responseDescription: 'How many rows were patched.',
    notes:
      'Up to 500 distinct `ids` and one `patch` (categoryId, status, memo, payeeId, flagIds replacing the flags, ' +
      'addTagIds, removeTagIds), all or nothing. Reconciled rules apply: `reconciled` is never set here, and a ' +
      'reconciled row refuses `pending` with 409 `TRANSACTION_RECONCILED`. An unknown id answers 404 naming its index.',
    errors: {
      400: ['STATUS_NOT_ALLOWED', 'SPLIT_CATEGORY_CONFLICT'],
      409: ['TRANSACTION_RECONCILED'],
    },
  }),
  operationRoute(operations.transactions.dailySummary, {
    method: 'get',
    path: `${transactions}/daily-summary`,
    status: 200,
    tag,
    summary: 'Money in, money out and count per day',
    response: DailySummarySchema,
    responseDescription: 'The summary.',
    notes:
      'One entry per day from `fromDate` to `toDate` (default: the 30 days ending on your local day, or starting ' +
      "on `fromDate`), at most 92 days (400 `WINDOW_TOO_LARGE`). Figures are converted to the household's base " +
      'currency with its exchange rates (see /exchange-rates), rounding half away from zero per day and currency; ' +
      '`byCurrency` adds face-value totals per currency, and a currency without a rate is listed in ' +
      '`unconvertedCurrencies`, never guessed. Transfer legs and system rows (opening balances, adjustments) are ' +
      'left out. `accountId` narrows to one account. `fromDate` after `toDate` answers 400 `INVALID_DATE_RANGE`.',
    errors: { 400: ['INVALID_DATE_RANGE', 'WINDOW_TOO_LARGE'] },
  }),
  operationRoute(operations.transactions.stalePendingCount, {
    method: 'get',
    path: `${transactions}/stale-pending-count`,
    status: 200,
    tag,
    summary: 'Count hand-entered rows still pending too long',
    response: StalePendingCountSchema,
    responseDescription: 'The count.',
    notes:
      'Hand-entered (not imported) rows still pending at least `days` days (default 7) after their date, counted ' +
      'on your local day, on bank-fed accounts only. `accountId` narrows to one account.',
  }),
]
