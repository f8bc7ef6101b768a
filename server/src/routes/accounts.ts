import {
  AccountListSchema,
  AccountSchema,
  BalanceHistorySchema,
  CloseAccountResultSchema,
  ReconcileResultSchema,
} from '@hearth/contracts'
import {
  BalanceHistoryArgsSchema,
  CloseAccountArgsSchema,
  ConvertAccountArgsSchema,
  CreateAccountArgsSchema,
  DeleteAccountArgsSchema,
  ListAccountsArgsSchema,
  operations,
  ReconcileAccountArgsSchema,
  ReorderAccountsArgsSchema,
  runMutation,
  runQuery,
  type Store,
  UlidSchema,
  UpdateAccountArgsSchema,
} from '@hearth/engine'
import { OpenAPIHono } from '@hono/zod-openapi'
import { ulid } from 'ulidx'
import { type AppEnv, householdContext } from '../http/env.ts'
import { apiRoute, ClientId, HouseholdParams, jsonBody, jsonResponse, z } from '../http/route.ts'

const AccountParams = HouseholdParams.extend({ accountId: z.string() })
const AdjustmentId = UlidSchema.optional().meta({
  description: 'Your own ULID for an adjustment row, should one be booked; one is made if omitted.',
})
const tags = ['Accounts']

const createAccount = apiRoute({
  method: 'post',
  path: '/households/{householdId}/accounts',
  tags,
  summary: 'Create an account',
  description:
    'A non-zero `openingBalanceCents` is booked as a cleared opening-balance row dated `openingBalanceDate` ' +
    "(default: your local day). Currency defaults to the household's base currency; the group to one per type.",
  scope: 'write:accounts',
  request: { params: HouseholdParams, body: jsonBody(CreateAccountArgsSchema.extend({ id: ClientId })) },
  responses: { 201: jsonResponse(AccountSchema, 'The new account, with its balances.') },
})

const listAccounts = apiRoute({
  method: 'get',
  path: '/households/{householdId}/accounts',
  tags,
  summary: 'List accounts',
  description:
    'Live accounts by group, then position, each with its balances. `status` filters open or closed.',
  scope: 'read:accounts',
  request: { params: HouseholdParams, query: ListAccountsArgsSchema },
  responses: { 200: jsonResponse(AccountListSchema, 'The accounts.') },
})

const reorderAccounts = apiRoute({
  method: 'post',
  path: '/households/{householdId}/accounts/reorder',
  tags,
  summary: 'Reorder accounts within their groups',
  description:
    'Within each group the listed accounts come first, in the order given; unlisted ones follow. An id listed ' +
    'twice answers 400 `DUPLICATE_ID`, an unknown one 400 `UNKNOWN_ID`; nothing changes then.',
  scope: 'write:accounts',
  request: { params: HouseholdParams, body: jsonBody(ReorderAccountsArgsSchema) },
  responses: { 204: { description: 'Reordered.' } },
})

const getAccount = apiRoute({
  method: 'get',
  path: '/households/{householdId}/accounts/{accountId}',
  tags,
  summary: 'Get an account with its balances',
  scope: 'read:accounts',
  request: { params: AccountParams },
  responses: { 200: jsonResponse(AccountSchema, 'The account.') },
})

const updateAccount = apiRoute({
  method: 'patch',
  path: '/households/{householdId}/accounts/{accountId}',
  tags,
  summary: 'Update an account',
  description:
    'Rename, regroup (last in the new group), set the subtype or `bankFed`. Currency may change only while ' +
    'the account has no rows (409 `ACCOUNT_HAS_TRANSACTIONS`). Type changes go through convert, status through close and reopen.',
  scope: 'write:accounts',
  request: { params: AccountParams, body: jsonBody(UpdateAccountArgsSchema.omit({ id: true })) },
  responses: { 200: jsonResponse(AccountSchema, 'The updated account.') },
})

const deleteAccount = apiRoute({
  method: 'delete',
  path: '/households/{householdId}/accounts/{accountId}',
  tags,
  summary: 'Delete an account',
  description:
    'Soft delete of the account and its rows. A non-zero balance answers 409 `ACCOUNT_BALANCE_NOT_ZERO` ' +
    'unless `force=true`. Transfer legs in other accounts lose their link.',
  scope: 'write:accounts',
  request: { params: AccountParams, query: DeleteAccountArgsSchema.pick({ force: true }) },
  responses: { 204: { description: 'Deleted.' } },
})

const reconcileAccount = apiRoute({
  method: 'post',
  path: '/households/{householdId}/accounts/{accountId}/reconcile',
  tags,
  summary: 'Reconcile against a bank statement',
  description:
    'A gap between `statementBalanceCents` and the cleared balance as of `statementDate` (default: your ' +
    'local day) is booked as a reconciled adjustment row; then every cleared row on or before that date ' +
    'becomes reconciled. A closed account answers 409 `ACCOUNT_CLOSED`.',
  scope: 'write:accounts',
  request: {
    params: AccountParams,
    body: jsonBody(ReconcileAccountArgsSchema.omit({ id: true }).extend({ adjustmentId: AdjustmentId })),
  },
  responses: {
    200: jsonResponse(ReconcileResultSchema, 'The account, the adjustment or null, and the count locked.'),
  },
})

const convertAccount = apiRoute({
  method: 'post',
  path: '/households/{householdId}/accounts/{accountId}/convert',
  tags,
  summary: 'Change the account type',
  description:
    'Only cash and credit (either way) and loan and tracking (either way). Crossing the budget boundary ' +
    'answers 422 `ACCOUNT_CONVERSION_NOT_ALLOWED` with guidance in `detail`.',
  scope: 'write:accounts',
  request: { params: AccountParams, body: jsonBody(ConvertAccountArgsSchema.omit({ id: true })) },
  responses: { 200: jsonResponse(AccountSchema, 'The converted account.') },
})

const closeAccount = apiRoute({
  method: 'post',
  path: '/households/{householdId}/accounts/{accountId}/close',
  tags,
  summary: 'Close an account',
  description:
    'A remaining balance is booked as an adjustment dated on your local day (your time zone, else the ' +
    "household's), so a closed account holds zero. An already closed account answers 409 `ACCOUNT_NOT_OPEN`. " +
    'The body is optional.',
  scope: 'write:accounts',
  request: {
    params: AccountParams,
    body: {
      ...jsonBody(CloseAccountArgsSchema.omit({ id: true }).extend({ adjustmentId: AdjustmentId })),
      required: false,
    },
  },
  responses: {
    200: jsonResponse(CloseAccountResultSchema, 'The closed account and the adjustment or null.'),
  },
})

const reopenAccount = apiRoute({
  method: 'post',
  path: '/households/{householdId}/accounts/{accountId}/reopen',
  tags,
  summary: 'Reopen a closed account',
  description: 'An account that is not closed answers 409 `ACCOUNT_NOT_CLOSED`.',
  scope: 'write:accounts',
  request: { params: AccountParams },
  responses: { 200: jsonResponse(AccountSchema, 'The reopened account.') },
})

const balanceHistory = apiRoute({
  method: 'get',
  path: '/households/{householdId}/accounts/{accountId}/balance-history',
  tags,
  summary: 'Daily running balance',
  description:
    'One point per day from `fromDate` to `toDate`, both included; the default window is the 30 days ' +
    'ending on your local day (or starting on `fromDate`). At most 366 days (400 `WINDOW_TOO_LARGE`); ' +
    '`fromDate` after `toDate` answers 400 `INVALID_DATE_RANGE`.',
  scope: 'read:accounts',
  request: { params: AccountParams, query: BalanceHistoryArgsSchema.omit({ id: true }) },
  responses: { 200: jsonResponse(BalanceHistorySchema, 'The daily balances.') },
})

/** Accounts: CRUD, reorder, reconcile, convert, close, reopen and balance history. */
export function accountRoutes(store: Store) {
  return new OpenAPIHono<AppEnv>()
    .openapi(createAccount, async (c) => {
      const body = c.req.valid('json')
      const { result } = await runMutation(
        store.db,
        operations.accounts.create,
        { ...body, id: body.id ?? ulid() },
        householdContext(c.var),
      )
      return c.json(result, 201)
    })
    .openapi(listAccounts, async (c) => {
      const list = await runQuery(
        store.db,
        operations.accounts.list,
        c.req.valid('query'),
        householdContext(c.var),
      )
      return c.json(list, 200)
    })
    .openapi(reorderAccounts, async (c) => {
      await runMutation(store.db, operations.accounts.reorder, c.req.valid('json'), householdContext(c.var))
      return c.body(null, 204)
    })
    .openapi(getAccount, async (c) => {
      const id = c.req.valid('param').accountId
      const account = await runQuery(store.db, operations.accounts.get, { id }, householdContext(c.var))
      return c.json(account, 200)
    })
    .openapi(updateAccount, async (c) => {
      const { result } = await runMutation(
        store.db,
        operations.accounts.update,
        { ...c.req.valid('json'), id: c.req.valid('param').accountId },
        householdContext(c.var),
      )
      return c.json(result, 200)
    })
    .openapi(deleteAccount, async (c) => {
      await runMutation(
        store.db,
        operations.accounts.delete,
        { ...c.req.valid('query'), id: c.req.valid('param').accountId },
        householdContext(c.var),
      )
      return c.body(null, 204)
    })
    .openapi(reconcileAccount, async (c) => {
      const body = c.req.valid('json')
      const { result } = await runMutation(
        store.db,
        operations.accounts.reconcile,
        { ...body, id: c.req.valid('param').accountId, adjustmentId: body.adjustmentId ?? ulid() },
        householdContext(c.var),
      )
      return c.json(result, 200)
    })
    .openapi(convertAccount, async (c) => {
      const { result } = await runMutation(
        store.db,
        operations.accounts.convert,
        { ...c.req.valid('json'), id: c.req.valid('param').accountId },
        householdContext(c.var),
      )
      return c.json(result, 200)
    })
    .openapi(closeAccount, async (c) => {
      const body = c.req.valid('json') ?? {}
      const { result } = await runMutation(
        store.db,
        operations.accounts.close,
        { id: c.req.valid('param').accountId, adjustmentId: body.adjustmentId ?? ulid() },
        householdContext(c.var),
      )
      return c.json(result, 200)
    })
    .openapi(reopenAccount, async (c) => {
      const { result } = await runMutation(
        store.db,
        operations.accounts.reopen,
        { id: c.req.valid('param').accountId },
        householdContext(c.var),
      )
      return c.json(result, 200)
    })
    .openapi(balanceHistory, async (c) => {
      const history = await runQuery(
        store.db,
        operations.accounts.balanceHistory,
        { ...c.req.valid('query'), id: c.req.valid('param').accountId },
        householdContext(c.var),
      )
      return c.json(history, 200)
    })
}
