import {
  LinkTransferResultSchema,
  TransactionListSchema,
  TransferResultSchema,
  UnlinkTransferResultSchema,
} from '@hearth/contracts'
import { operations } from '@hearth/engine'
import { operationRoute } from '../http/operation-route.ts'

const tag = 'Transactions'
const transactions = '/households/{householdId}/transactions'
const transaction = `${transactions}/{transactionId}`

/** Transfers: create, candidates, link and unlink. */
export const transferRoutes = [
  operationRoute(operations.transactions.transfer, {
    method: 'post',
    path: `${transactions}/transfer`,
    status: 201,
    tag,
    summary: 'Transfer money between two accounts',
    clientIds: ['fromTransactionId', 'toTransactionId'],
    response: TransferResultSchema,
    responseDescription: 'Both legs and their group.',
    notes:
      'Books two legs sharing one transfer group (the from leg id): `-amountCents` on `fromAccountId` and ' +
      '`+amountCents` on `toAccountId`. `amountCents` must be positive. Both accounts must be open and share a ' +
      'currency (400 `TRANSFER_CURRENCY_MISMATCH`); the same account twice answers 400 `TRANSFER_SAME_ACCOUNT`. ' +
      '`fromTransactionId` and `toTransactionId` are your own ULIDs for the legs; they are made if omitted.',
    errors: {
      400: ['TRANSFER_SAME_ACCOUNT', 'TRANSFER_CURRENCY_MISMATCH', 'DUPLICATE_ID'],
      409: ['ACCOUNT_CLOSED', 'ID_ALREADY_EXISTS'],
    },
  }),
  operationRoute(operations.transactions.transferCandidates, {
    method: 'get',
    path: `${transaction}/transfer-candidates`,
    status: 200,
    tag,
    summary: 'Rows that could be the other leg of a transfer',
    response: TransactionListSchema,
    responseDescription: 'The candidates.',
    notes:
      'Unlinked rows with the exact opposite amount, on another account in the same currency, dated within 7 ' +
      'days; nearest date first, at most 50. System rows have none.',
  }),
  operationRoute(operations.transactions.linkTransfer, {
    method: 'post',
    path: `${transaction}/link-transfer`,
    status: 200,
    tag,
    summary: 'Link two rows as the legs of one transfer',
    response: LinkTransferResultSchema,
    responseDescription: 'Both legs.',
    notes:
      'The group id is this row id. A row already in a transfer answers 409 `TRANSFER_ALREADY_LINKED`; a ' +
      'counterpart that does not qualify (amount, account, currency, system row) 400 `NOT_A_TRANSFER_COUNTERPART`.',
    errors: { 400: ['NOT_A_TRANSFER_COUNTERPART'], 409: ['TRANSFER_ALREADY_LINKED'] },
  }),
  operationRoute(operations.transactions.unlinkTransfer, {
    method: 'post',
    path: `${transaction}/unlink-transfer`,
    status: 200,
    tag,
    summary: 'Unlink a transfer into two plain rows',
    optionalBody: true,
    response: UnlinkTransferResultSchema,
    responseDescription: 'The former legs.',
    notes:
      'Both legs keep payee and category and drop the group. A reconciled leg answers 409 ' +
      '`TRANSACTION_RECONCILED`; a row that is no transfer leg 409 `NOT_A_TRANSFER`.',
    errors: { 409: ['TRANSACTION_RECONCILED', 'NOT_A_TRANSFER'] },
  }),
]
