import { PayeeListSchema, PayeeSchema } from '@hearth/contracts'
import {
  CreatePayeeArgsSchema,
  operations,
  runMutation,
  runQuery,
  type Store,
  UpdatePayeeArgsSchema,
} from '@hearth/engine'
import { OpenAPIHono } from '@hono/zod-openapi'
import { ulid } from 'ulidx'
import { type AppEnv, householdContext } from '../http/env.ts'
import { apiRoute, ClientId, HouseholdParams, jsonBody, jsonResponse, z } from '../http/route.ts'

const PayeeParams = HouseholdParams.extend({ payeeId: z.string() })
const createPayee = apiRoute({
  method: 'post',
  path: '/households/{householdId}/payees',
  tags: ['Payees'],
  summary: 'Create a payee',
  description: 'No two live payees may share a normalized name (409 `PAYEE_NAME_TAKEN`).',
  scope: 'write:payees',
  request: { params: HouseholdParams, body: jsonBody(CreatePayeeArgsSchema.extend({ id: ClientId })) },
  responses: { 201: jsonResponse(PayeeSchema, 'The new payee.') },
})

const listPayees = apiRoute({
  method: 'get',
  path: '/households/{householdId}/payees',
  tags: ['Payees'],
  summary: 'List payees',
  description: 'Every live payee, by normalized name, then id. Not paginated.',
  scope: 'read:payees',
  request: { params: HouseholdParams },
  responses: { 200: jsonResponse(PayeeListSchema, 'The payees.') },
})

const getPayee = apiRoute({
  method: 'get',
  path: '/households/{householdId}/payees/{payeeId}',
  tags: ['Payees'],
  summary: 'Get a payee',
  scope: 'read:payees',
  request: { params: PayeeParams },
  responses: { 200: jsonResponse(PayeeSchema, 'The payee.') },
})

const updatePayee = apiRoute({
  method: 'patch',
  path: '/households/{householdId}/payees/{payeeId}',
  tags: ['Payees'],
  summary: 'Update a payee',
  description: 'A rename recomputes `normalizedName`. `categoryId: null` clears the default category.',
  scope: 'write:payees',
  request: { params: PayeeParams, body: jsonBody(UpdatePayeeArgsSchema.omit({ id: true })) },
  responses: { 200: jsonResponse(PayeeSchema, 'The updated payee.') },
})

const deletePayee = apiRoute({
  method: 'delete',
  path: '/households/{householdId}/payees/{payeeId}',
  tags: ['Payees'],
  summary: 'Delete a payee',
  description: 'Soft delete. Transactions keep it; its name is free for a new payee.',
  scope: 'write:payees',
  request: { params: PayeeParams },
  responses: { 204: { description: 'Deleted.' } },
})

/** Payee CRUD; aliases, merge and duplicate detection live elsewhere. */
export function payeeRoutes(store: Store) {
  return new OpenAPIHono<AppEnv>()
    .openapi(createPayee, async (c) => {
      const body = c.req.valid('json')
      const { result } = await runMutation(
        store.db,
        operations.payees.create,
        { ...body, id: body.id ?? ulid() },
        householdContext(c.var),
      )
      return c.json(result, 201)
    })
    .openapi(listPayees, async (c) => {
      return c.json(await runQuery(store.db, operations.payees.list, {}, householdContext(c.var)), 200)
    })
    .openapi(getPayee, async (c) => {
      const id = c.req.valid('param').payeeId
      return c.json(await runQuery(store.db, operations.payees.get, { id }, householdContext(c.var)), 200)
    })
    .openapi(updatePayee, async (c) => {
      const { result } = await runMutation(
        store.db,
        operations.payees.update,
        { ...c.req.valid('json'), id: c.req.valid('param').payeeId },
        householdContext(c.var),
      )
      return c.json(result, 200)
    })
    .openapi(deletePayee, async (c) => {
      const id = c.req.valid('param').payeeId
      await runMutation(store.db, operations.payees.delete, { id }, householdContext(c.var))
      return c.body(null, 204)
    })
}
