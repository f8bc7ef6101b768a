import { TagListSchema, TagSchema } from '@hearth/contracts'
import {
  CreateTagArgsSchema,
  operations,
  runMutation,
  runQuery,
  type Store,
  UpdateTagArgsSchema,
} from '@hearth/engine'
import { OpenAPIHono } from '@hono/zod-openapi'
import { ulid } from 'ulidx'
import { type AppEnv, householdContext } from '../http/env.ts'
import { apiRoute, ClientId, HouseholdParams, jsonBody, jsonResponse, z } from '../http/route.ts'

const TagParams = HouseholdParams.extend({ tagId: z.string() })
const createTag = apiRoute({
  method: 'post',
  path: '/households/{householdId}/tags',
  tags: ['Tags'],
  summary: 'Create a tag',
  description: 'Names are unique in the household, ignoring case (409 `TAG_NAME_TAKEN`).',
  scope: 'write:tags',
  request: { params: HouseholdParams, body: jsonBody(CreateTagArgsSchema.extend({ id: ClientId })) },
  responses: { 201: jsonResponse(TagSchema, 'The new tag.') },
})

const listTags = apiRoute({
  method: 'get',
  path: '/households/{householdId}/tags',
  tags: ['Tags'],
  summary: 'List tags',
  description: 'A bare array of Tag objects (not wrapped in `items`), by name ignoring case, then id.',
  scope: 'read:tags',
  request: { params: HouseholdParams },
  responses: { 200: jsonResponse(TagListSchema, 'The tags.') },
})

const updateTag = apiRoute({
  method: 'patch',
  path: '/households/{householdId}/tags/{tagId}',
  tags: ['Tags'],
  summary: 'Update a tag',
  description: '`color: null` clears the colour.',
  scope: 'write:tags',
  request: { params: TagParams, body: jsonBody(UpdateTagArgsSchema.omit({ id: true })) },
  responses: { 200: jsonResponse(TagSchema, 'The updated tag.') },
})

const deleteTag = apiRoute({
  method: 'delete',
  path: '/households/{householdId}/tags/{tagId}',
  tags: ['Tags'],
  summary: 'Delete a tag',
  description: 'Deletes the tag for good and removes it from every transaction it was on.',
  scope: 'write:tags',
  request: { params: TagParams },
  responses: { 204: { description: 'Deleted.' } },
})

/** Tag CRUD. */
export function tagRoutes(store: Store) {
  return new OpenAPIHono<AppEnv>()
    .openapi(createTag, async (c) => {
      const body = c.req.valid('json')
      const { result } = await runMutation(
        store.db,
        operations.tags.create,
        { ...body, id: body.id ?? ulid() },
        householdContext(c.var),
      )
      return c.json(result, 201)
    })
    .openapi(listTags, async (c) => {
      return c.json(await runQuery(store.db, operations.tags.list, {}, householdContext(c.var)), 200)
    })
    .openapi(updateTag, async (c) => {
      const { result } = await runMutation(
        store.db,
        operations.tags.update,
        { ...c.req.valid('json'), id: c.req.valid('param').tagId },
        householdContext(c.var),
      )
      return c.json(result, 200)
    })
    .openapi(deleteTag, async (c) => {
      const id = c.req.valid('param').tagId
      await runMutation(store.db, operations.tags.delete, { id }, householdContext(c.var))
      return c.body(null, 204)
    })
}
