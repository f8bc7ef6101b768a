import { HouseholdSchema, MemberListSchema } from '@hearth/contracts'
import { operations, runMutation, runQuery, type Store, UpdateHouseholdArgsSchema } from '@hearth/engine'
import { OpenAPIHono } from '@hono/zod-openapi'
import { type AppEnv, householdContext } from '../http/env.ts'
import { apiRoute, HouseholdParams, jsonBody, jsonResponse } from '../http/route.ts'

const getHousehold = apiRoute({
  method: 'get',
  path: '/households/{householdId}',
  tags: ['Households'],
  summary: 'Get a household',
  scope: 'read:households',
  request: { params: HouseholdParams },
  responses: { 200: jsonResponse(HouseholdSchema, 'The household.') },
})

const updateHousehold = apiRoute({
  method: 'patch',
  path: '/households/{householdId}',
  tags: ['Households'],
  summary: 'Update a household',
  description: 'Owners only; a member gets 403 OWNER_ONLY.',
  scope: 'write:households',
  request: { params: HouseholdParams, body: jsonBody(UpdateHouseholdArgsSchema) },
  responses: { 200: jsonResponse(HouseholdSchema, 'The updated household.') },
})

const listMembers = apiRoute({
  method: 'get',
  path: '/households/{householdId}/members',
  tags: ['Households'],
  summary: 'List the members of a household',
  scope: 'read:households',
  request: { params: HouseholdParams },
  responses: { 200: jsonResponse(MemberListSchema, 'Owners first, then by join date.') },
})

/** Household routes: read and update the household, list its members. */
export function householdRoutes(store: Store) {
  return new OpenAPIHono<AppEnv>()
    .openapi(getHousehold, async (c) => {
      return c.json(await runQuery(store.db, operations.households.get, {}, householdContext(c.var)), 200)
    })
    .openapi(updateHousehold, async (c) => {
      const { result } = await runMutation(
        store.db,
        operations.households.update,
        c.req.valid('json'),
        householdContext(c.var),
      )
      return c.json(result, 200)
    })
    .openapi(listMembers, async (c) => {
      const items = await runQuery(store.db, operations.members.list, {}, householdContext(c.var))
      return c.json({ items }, 200)
    })
}
