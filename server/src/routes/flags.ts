import { FlagListSchema, FlagSchema } from '@hearth/contracts'
import {
  CreateFlagArgsSchema,
  operations,
  runMutation,
  runQuery,
  type Store,
  UpdateFlagArgsSchema,
} from '@hearth/engine'
import { OpenAPIHono } from '@hono/zod-openapi'
import { ulid } from 'ulidx'
import { type AppEnv, householdContext } from '../http/env.ts'
import { apiRoute, ClientId, HouseholdParams, jsonBody, jsonResponse, z } from '../http/route.ts'

// Flags have no scope of their own in the spec; they mark transactions, so they use its scopes.

const FlagParams = HouseholdParams.extend({ flagId: z.string() })
const listFlags = apiRoute({
  method: 'get',
  path: '/households/{householdId}/flags',
  tags: ['Flags'],
  summary: 'List flags',
  description: 'Every flag by position, then id. New households start with six default flags.',
  scope: 'read:transactions',
  request: { params: HouseholdParams },
  responses: { 200: jsonResponse(FlagListSchema, 'The flags.') },
})

const createFlag = apiRoute({
  method: 'post',
  path: '/households/{householdId}/flags',
  tags: ['Flags'],
  summary: 'Create a flag',
  description:
    'Goes last unless `position` is given. Names are unique, ignoring case (409 `FLAG_NAME_TAKEN`).',
  scope: 'write:transactions',
  request: { params: HouseholdParams, body: jsonBody(CreateFlagArgsSchema.extend({ id: ClientId })) },
  responses: { 201: jsonResponse(FlagSchema, 'The new flag.') },
})

const updateFlag = apiRoute({
  method: 'patch',
  path: '/households/{householdId}/flags/{flagId}',
  tags: ['Flags'],
  summary: 'Update a flag',
  scope: 'write:transactions',
  request: { params: FlagParams, body: jsonBody(UpdateFlagArgsSchema.omit({ id: true })) },
  responses: { 200: jsonResponse(FlagSchema, 'The updated flag.') },
})

const deleteFlag = apiRoute({
  method: 'delete',
  path: '/households/{householdId}/flags/{flagId}',
  tags: ['Flags'],
  summary: 'Delete a flag',
  description: 'Deletes the flag for good and removes it from every transaction it was on.',
  scope: 'write:transactions',
  request: { params: FlagParams },
  responses: { 204: { description: 'Deleted.' } },
})

/** Flag CRUD, so clients can discover and manage the flag ids transactions carry. */
export function flagRoutes(store: Store) {
  return new OpenAPIHono<AppEnv>()
    .openapi(listFlags, async (c) => {
      return c.json(await runQuery(store.db, operations.flags.list, {}, householdContext(c.var)), 200)
    })
    .openapi(createFlag, async (c) => {
      const body = c.req.valid('json')
      const { result } = await runMutation(
        store.db,
        operations.flags.create,
        { ...body, id: body.id ?? ulid() },
        householdContext(c.var),
      )
      return c.json(result, 201)
    })
    .openapi(updateFlag, async (c) => {
      const { result } = await runMutation(
        store.db,
        operations.flags.update,
        { ...c.req.valid('json'), id: c.req.valid('param').flagId },
        householdContext(c.var),
      )
      return c.json(result, 200)
    })
    .openapi(deleteFlag, async (c) => {
      const id = c.req.valid('param').flagId
      await runMutation(store.db, operations.flags.delete, { id }, householdContext(c.var))
      return c.body(null, 204)
    })
}
