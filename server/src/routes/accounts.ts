import {
  AccountListSchema,
  AccountSchema,
  BalanceHistorySchema,
  CloseAccountResultSchema,
  ReconcileResultSchema,
} from '@hearth/contracts'
import { operations } from '@hearth/engine'
import { operationRoute } from '../http/operation-route.ts'

const tag = 'Accounts'
const accounts = '/households/{householdId}/accounts'
const account = `${accounts}/{accountId}`
const adjustmentIdNote =
  '`adjustmentId` is your own ULID for an adjustment row, should one be booked; one is made if omitted.'

/** Accounts: CRUD, reorder, reconcile, convert, close, reopen and balance history. */
export const accountRoutes = [
  operationRoute(operations.accounts.create, {
    method: 'post',
    path: accounts,
    status: 201,
    tag,
    summary: 'Create an account',
    clientIds: ['id'],
    response: AccountSchema,
    responseDescription: 'The new account, with its balances.',
    notes:
      'A non-zero `openingBalanceCents` is booked as a cleared opening-balance row dated `openingBalanceDate` ' +
      "(default: your local day). Currency defaults to the household's base currency; the group to one per type.",
    errors: { 409: ['ID_ALREADY_EXISTS'] },
  }),
  operationRoute(operations.accounts.list, {
    method: 'get',
    path: accounts,
    status: 200,
    tag,
    summary: 'List accounts',
    response: AccountListSchema,
    responseDescription: 'The accounts.',
    notes: 'Live accounts by group, then position, each with its balances. `status` filters open or closed.',
  }),
  operationRoute(operations.accounts.reorder, {
    method: 'post',
    path: `${accounts}/reorder`,
    status: 204,
    tag,
    summary: 'Reorder accounts within their groups',
    responseDescription: 'Reordered.',
    notes:
      'Within each group the listed accounts come first, in the order given; unlisted ones follow. An id listed ' +
      'twice answers 400 `DUPLICATE_ID`, an unknown one 400 `UNKNOWN_ID`; nothing changes then.',
    errors: { 400: ['DUPLICATE_ID', 'UNKNOWN_ID'] },
  }),
  operationRoute(operations.accounts.get, {
    method: 'get',
    path: account,
    status: 200,
    tag,
    summary: 'Get an account with its balances',
    response: AccountSchema,
    responseDescription: 'The account.',
  }),
  operationRoute(operations.accounts.update, {
    method: 'patch',
    path: account,
    status: 200,
    tag,
    summary: 'Update an account',
    response: AccountSchema,
    responseDescription: 'The updated account.',
    notes:
      'Rename, regroup (last in the new group), set the subtype or `bankFed`. Currency may change only while ' +
      'the account has no rows (409 `ACCOUNT_HAS_TRANSACTIONS`). Type changes go through convert, status through close and reopen.',
    errors: { 409: ['ACCOUNT_HAS_TRANSACTIONS'] },
  }),
  operationRoute(operations.accounts.delete, {
    method: 'delete',
    path: account,
    status: 204,
    tag,
    summary: 'Delete an account',
    responseDescription: 'Deleted.',
    notes:
      'Soft delete of the account and its rows. A non-zero balance answers 409 `ACCOUNT_BALANCE_NOT_ZERO` ' +
      'unless `force=true`. Transfer legs in other accounts lose their link.',
    errors: { 409: ['ACCOUNT_BALANCE_NOT_ZERO'] },
  }),
  operationRoute(operations.accounts.reconcile, {
    method: 'post',
    path: `${account}/reconcile`,
    status: 200,
    tag,
    summary: 'Reconcile against a bank statement',
    clientIds: ['adjustmentId'],
    response: ReconcileResultSchema,
    responseDescription: 'The account, the adjustment or null, and the count locked.',
    notes:
      'A gap between `statementBalanceCents` and the cleared balance as of `statementDate` (default: your ' +
      'local day) is booked as a reconciled adjustment row; then every cleared row on or before that date ' +
      `becomes reconciled. A closed account answers 409 \`ACCOUNT_CLOSED\`. ${adjustmentIdNote}`,
    errors: { 409: ['ACCOUNT_CLOSED', 'ID_ALREADY_EXISTS'] },
  }),
  operationRoute(operations.accounts.convert, {
    method: 'post',
    path: `${account}/convert`,
    status: 200,
    tag,
    summary: 'Change the account type',
    response: AccountSchema,
    responseDescription: 'The converted account.',
    notes:
      'Only cash and credit (either way) and loan and tracking (either way). Crossing the budget boundary ' +
      'answers 422 `ACCOUNT_CONVERSION_NOT_ALLOWED` with guidance in `detail`.',
    errors: { 422: ['ACCOUNT_CONVERSION_NOT_ALLOWED'] },
  }),
  operationRoute(operations.accounts.close, {
    method: 'post',
    path: `${account}/close`,
    status: 200,
    tag,
    summary: 'Close an account',
    clientIds: ['adjustmentId'],
    optionalBody: true,
    response: CloseAccountResultSchema,
    responseDescription: 'The closed account and the adjustment or null.',
    notes:
      'A remaining balance is booked as an adjustment dated on your local day (your time zone, else the ' +
      "household's), so a closed account holds zero. An already closed account answers 409 `ACCOUNT_NOT_OPEN`. " +
      `The body is optional. ${adjustmentIdNote}`,
    errors: { 409: ['ACCOUNT_NOT_OPEN', 'ID_ALREADY_EXISTS'] },
  }),
  operationRoute(operations.accounts.reopen, {
    method: 'post',
    path: `${account}/reopen`,
    status: 200,
    tag,
    summary: 'Reopen a closed account',
    optionalBody: true,
    response: AccountSchema,
    responseDescription: 'The reopened account.',
    notes: 'An account that is not closed answers 409 `ACCOUNT_NOT_CLOSED`.',
    errors: { 409: ['ACCOUNT_NOT_CLOSED'] },
  }),
  operationRoute(operations.accounts.balanceHistory, {
    method: 'get',
    path: `${account}/balance-history`,
    status: 200,
    tag,
    summary: 'Daily running balance',
    response: BalanceHistorySchema,
    responseDescription: 'The daily balances.',
    notes:
      'One point per day from `fromDate` to `toDate`, both included; the default window is the 30 days ' +
      'ending on your local day (or starting on `fromDate`). At most 366 days (400 `WINDOW_TOO_LARGE`); ' +
      '`fromDate` after `toDate` answers 400 `INVALID_DATE_RANGE`.',
    errors: { 400: ['INVALID_DATE_RANGE', 'WINDOW_TOO_LARGE'] },
  }),
]
