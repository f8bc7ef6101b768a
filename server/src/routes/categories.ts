import {
  CategoryGroupListSchema,
  CategoryGroupSchema,
  CategoryListSchema,
  CategorySchema,
  StarterPackResultSchema,
} from '@hearth/contracts'
import {
  CreateCategoryArgsSchema,
  CreateCategoryGroupArgsSchema,
  ListCategoriesArgsSchema,
  operations,
  ReorderCategoriesArgsSchema,
  runMutation,
  runQuery,
  type Store,
  UpdateCategoryArgsSchema,
  UpdateCategoryGroupArgsSchema,
} from '@hearth/engine'
import { OpenAPIHono } from '@hono/zod-openapi'
import { ulid } from 'ulidx'
import { type AppEnv, householdContext } from '../http/env.ts'
import { apiRoute, ClientId, HouseholdParams, jsonBody, jsonResponse, z } from '../http/route.ts'

const CategoryParams = HouseholdParams.extend({ categoryId: z.string() })
const GroupParams = HouseholdParams.extend({ groupId: z.string() })
const createCategory = apiRoute({
  method: 'post',
  path: '/households/{householdId}/categories',
  tags: ['Categories'],
  summary: 'Create a category in a group',
  description:
    'Goes last in its group unless `position` is given. Names are unique within a group, ignoring case.',
  scope: 'write:categories',
  request: { params: HouseholdParams, body: jsonBody(CreateCategoryArgsSchema.extend({ id: ClientId })) },
  responses: { 201: jsonResponse(CategorySchema, 'The new category.') },
})

const listCategories = apiRoute({
  method: 'get',
  path: '/households/{householdId}/categories',
  tags: ['Categories'],
  summary: 'List categories',
  description:
    'Live categories, hidden ones included, by group position then their own. `groupId` filters to one group.',
  scope: 'read:categories',
  request: { params: HouseholdParams, query: ListCategoriesArgsSchema },
  responses: { 200: jsonResponse(CategoryListSchema, 'The categories.') },
})

const updateCategory = apiRoute({
  method: 'patch',
  path: '/households/{householdId}/categories/{categoryId}',
  tags: ['Categories'],
  summary: 'Update a category',
  description: 'Rename, hide, reposition or move to another group (last there unless `position` is given).',
  scope: 'write:categories',
  request: { params: CategoryParams, body: jsonBody(UpdateCategoryArgsSchema.omit({ id: true })) },
  responses: { 200: jsonResponse(CategorySchema, 'The updated category.') },
})

const deleteCategory = apiRoute({
  method: 'delete',
  path: '/households/{householdId}/categories/{categoryId}',
  tags: ['Categories'],
  summary: 'Delete a category',
  description: 'Soft delete. Transactions keep it; payees that defaulted to it lose the default.',
  scope: 'write:categories',
  request: { params: CategoryParams },
  responses: { 204: { description: 'Deleted.' } },
})

const reorderCategories = apiRoute({
  method: 'post',
  path: '/households/{householdId}/categories/reorder',
  tags: ['Categories'],
  summary: 'Reorder categories across groups',
  description:
    'Sets the group and position of each listed category atomically. An id listed twice answers 400 ' +
    '`REORDER_DUPLICATE_ID`; an unknown category or group answers 400 `REORDER_UNKNOWN_ID`; nothing changes then.',
  scope: 'write:categories',
  request: { params: HouseholdParams, body: jsonBody(ReorderCategoriesArgsSchema) },
  responses: { 204: { description: 'Reordered.' } },
})

const createGroup = apiRoute({
  method: 'post',
  path: '/households/{householdId}/category-groups',
  tags: ['Categories'],
  summary: 'Create a category group',
  description: 'Goes last unless `position` is given. Names are unique in the household, ignoring case.',
  scope: 'write:categories',
  request: {
    params: HouseholdParams,
    body: jsonBody(CreateCategoryGroupArgsSchema.extend({ id: ClientId })),
  },
  responses: { 201: jsonResponse(CategoryGroupSchema, 'The new group, with its (empty) categories.') },
})

const listGroups = apiRoute({
  method: 'get',
  path: '/households/{householdId}/category-groups',
  tags: ['Categories'],
  summary: 'List category groups',
  description: 'Live groups by position, each with its live categories nested in order.',
  scope: 'read:categories',
  request: { params: HouseholdParams },
  responses: { 200: jsonResponse(CategoryGroupListSchema, 'The groups.') },
})

const updateGroup = apiRoute({
  method: 'patch',
  path: '/households/{householdId}/category-groups/{groupId}',
  tags: ['Categories'],
  summary: 'Update a category group',
  scope: 'write:categories',
  request: { params: GroupParams, body: jsonBody(UpdateCategoryGroupArgsSchema.omit({ id: true })) },
  responses: { 200: jsonResponse(CategoryGroupSchema, 'The updated group, with its categories.') },
})

const deleteGroup = apiRoute({
  method: 'delete',
  path: '/households/{householdId}/category-groups/{groupId}',
  tags: ['Categories'],
  summary: 'Delete a category group',
  description: 'Soft delete of the group and all its live categories.',
  scope: 'write:categories',
  request: { params: GroupParams },
  responses: { 204: { description: 'Deleted.' } },
})

const seedStarterPack = apiRoute({
  method: 'post',
  path: '/households/{householdId}/starter-pack',
  tags: ['Categories'],
  summary: 'Seed the starter category pack',
  description:
    "Creates starter groups and categories in the household's data language (en, de, fr or es; others get en). " +
    'Idempotent by name: live groups with a pack name are reused and categories whose name exists are skipped.',
  scope: 'write:categories',
  request: {
    params: HouseholdParams,
    body: { ...jsonBody(operations.catalog.seedStarterPack.args.partial()), required: false },
  },
  responses: { 201: jsonResponse(StarterPackResultSchema, 'What was created and what was skipped.') },
})

/** Categories, category groups and the starter pack. */
export function categoryRoutes(store: Store) {
  return new OpenAPIHono<AppEnv>()
    .openapi(createCategory, async (c) => {
      const body = c.req.valid('json')
      const { result } = await runMutation(
        store.db,
        operations.categories.create,
        { ...body, id: body.id ?? ulid() },
        householdContext(c.var),
      )
      return c.json(result, 201)
    })
    .openapi(listCategories, async (c) => {
      const list = await runQuery(
        store.db,
        operations.categories.list,
        c.req.valid('query'),
        householdContext(c.var),
      )
      return c.json(list, 200)
    })
    .openapi(reorderCategories, async (c) => {
      await runMutation(store.db, operations.categories.reorder, c.req.valid('json'), householdContext(c.var))
      return c.body(null, 204)
    })
    .openapi(updateCategory, async (c) => {
      const { result } = await runMutation(
        store.db,
        operations.categories.update,
        { ...c.req.valid('json'), id: c.req.valid('param').categoryId },
        householdContext(c.var),
      )
      return c.json(result, 200)
    })
    .openapi(deleteCategory, async (c) => {
      const id = c.req.valid('param').categoryId
      await runMutation(store.db, operations.categories.delete, { id }, householdContext(c.var))
      return c.body(null, 204)
    })
    .openapi(createGroup, async (c) => {
      const body = c.req.valid('json')
      const { result } = await runMutation(
        store.db,
        operations.categoryGroups.create,
        { ...body, id: body.id ?? ulid() },
        householdContext(c.var),
      )
      return c.json({ ...result, categories: result.categories ?? [] }, 201)
    })
    .openapi(listGroups, async (c) => {
      const { items } = await runQuery(store.db, operations.categoryGroups.list, {}, householdContext(c.var))
      return c.json({ items: items.map((g) => ({ ...g, categories: g.categories ?? [] })) }, 200)
    })
    .openapi(updateGroup, async (c) => {
      const { result } = await runMutation(
        store.db,
        operations.categoryGroups.update,
        { ...c.req.valid('json'), id: c.req.valid('param').groupId },
        householdContext(c.var),
      )
      return c.json({ ...result, categories: result.categories ?? [] }, 200)
    })
    .openapi(deleteGroup, async (c) => {
      const id = c.req.valid('param').groupId
      await runMutation(store.db, operations.categoryGroups.delete, { id }, householdContext(c.var))
      return c.body(null, 204)
    })
    .openapi(seedStarterPack, async (c) => {
      const { result } = await runMutation(
        store.db,
        operations.catalog.seedStarterPack,
        { seedId: c.req.valid('json').seedId ?? ulid() },
        householdContext(c.var),
      )
      return c.json(result, 201)
    })
}
