import {
  LinkTransferResultSchema,
  TransactionListSchema,
  TransferResultSchema,
  UnlinkTransferResultSchema,
} from '@hearth/contracts'
import { operations, runMutation, runQuery, type Store } from '@hearth/engine'
import { OpenAPIHono } from '@hono/zod-openapi'
import { ulid } from 'ulidx'
import { type AppEnv, householdContext } from '../http/env.ts'
import { apiRoute, ClientId, HouseholdParams, jsonBody, jsonResponse } from '../http/route.ts'
import { TransactionParams, tags } from './transaction-requests.ts'

const createTransfer = apiRoute({
  method: 'post',
  path: '/households/{householdId}/transactions/transfer',
  tags,
  summary: 'Transfer money between two accounts',
  description:
    'Books two legs sharing one transfer group (the from leg id): `-amountCents` on `fromAccountId` and ' +
    '`+amountCents` on `toAccountId`. `amountCents` must be positive. Both accounts must be open and share a ' +
    'currency (400 `TRANSFER_CURRENCY_MISMATCH`); the same account twice answers 400 `TRANSFER_SAME_ACCOUNT`.',
  scope: 'write:transactions',
  request: {
    params: HouseholdParams,
    body: jsonBody(
      operations.transactions.transfer.args.extend({
        fromTransactionId: ClientId,
        toTransactionId: ClientId,
      }),
    ),
  },
  responses: { 201: jsonResponse(TransferResultSchema, 'Both legs and their group.') },
})

const transferCandidates = apiRoute({
  method: 'get',
  path: '/households/{householdId}/transactions/{transactionId}/transfer-candidates',
  tags,
  summary: 'Rows that could be the other leg of a transfer',
  description:
    'Unlinked rows with the exact opposite amount, on another account in the same currency, dated within 7 ' +
    'days; nearest date first, at most 50. System rows have none.',
  scope: 'read:transactions',
  request: { params: TransactionParams },
  responses: { 200: jsonResponse(TransactionListSchema, 'The candidates.') },
})

const linkTransfer = apiRoute({
  method: 'post',
  path: '/households/{householdId}/transactions/{transactionId}/link-transfer',
  tags,
  summary: 'Link two rows as the legs of one transfer',
  description:
    'The group id is this row id. A row already in a transfer answers 409 `TRANSFER_ALREADY_LINKED`; a ' +
    'counterpart that does not qualify (amount, account, currency, system row) 400 `NOT_A_TRANSFER_COUNTERPART`.',
  scope: 'write:transactions',
  request: {
    params: TransactionParams,
    body: jsonBody(operations.transactions.linkTransfer.args.omit({ id: true })),
  },
  responses: { 200: jsonResponse(LinkTransferResultSchema, 'Both legs.') },
})

const unlinkTransfer = apiRoute({
  method: 'post',
  path: '/households/{householdId}/transactions/{transactionId}/unlink-transfer',
  tags,
  summary: 'Unlink a transfer into two plain rows',
  description:
    'Both legs keep payee and category and drop the group. A reconciled leg answers 409 ' +
    '`TRANSACTION_RECONCILED`; a row that is no transfer leg 409 `NOT_A_TRANSFER`.',
  scope: 'write:transactions',
  request: { params: TransactionParams },
  responses: { 200: jsonResponse(UnlinkTransferResultSchema, 'The former legs.') },
})

/** Transfers: create, candidates, link and unlink. */
export function transferRoutes(store: Store) {
  return new OpenAPIHono<AppEnv>()
    .openapi(createTransfer, async (c) => {
      const body = c.req.valid('json')
      const { result } = await runMutation(
        store.db,
        operations.transactions.transfer,
        {
          ...body,
          fromTransactionId: body.fromTransactionId ?? ulid(),
          toTransactionId: body.toTransactionId ?? ulid(),
        },
        householdContext(c.var),
      )
      return c.json(result, 201)
    })
    .openapi(transferCandidates, async (c) => {
      const id = c.req.valid('param').transactionId
      const list = await runQuery(
        store.db,
        operations.transactions.transferCandidates,
        { id },
        householdContext(c.var),
      )
      return c.json(list, 200)
    })
    .openapi(linkTransfer, async (c) => {
      const { result } = await runMutation(
        store.db,
        operations.transactions.linkTransfer,
        { ...c.req.valid('json'), id: c.req.valid('param').transactionId },
        householdContext(c.var),
      )
      return c.json(result, 200)
    })
    .openapi(unlinkTransfer, async (c) => {
      const id = c.req.valid('param').transactionId
      const { result } = await runMutation(
        store.db,
        operations.transactions.unlinkTransfer,
        { id },
        householdContext(c.var),
      )
      return c.json(result, 200)
    })
}
