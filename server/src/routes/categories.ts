import {
  CategoryGroupListSchema,
  CategoryGroupSchema,
  CategoryListSchema,
  CategorySchema,
  StarterPackResultSchema,
} from '@hearth/contracts'
import { type CategoryGroup, operations } from '@hearth/engine'
import { operationRoute } from '../http/operation-route.ts'

const tag = 'Categories'
const categories = '/households/{householdId}/categories'
const groups = '/households/{householdId}/category-groups'

/** A group always answers with its `categories` list, empty for a new group. */
const withCategories = (group: CategoryGroup) => ({ ...group, categories: group.categories ?? [] })

/** Categories, category groups and the starter pack. */
export const categoryRoutes = [
  operationRoute(operations.categories.create, {
    method: 'post',
    path: categories,
    status: 201,
    tag,
    clientIds: ['id'],
    response: CategorySchema,
    responseDescription: 'The new category.',
    notes:
      'Goes last in its group unless `position` is given. Names are unique within a group, ignoring case.',
    errors: { 404: ['NOT_FOUND'], 409: ['CATEGORY_NAME_TAKEN', 'ID_ALREADY_EXISTS'] },
  }),
  operationRoute(operations.categories.list, {
    method: 'get',
    path: categories,
    status: 200,
    tag,
    response: CategoryListSchema,
    responseDescription: 'The categories.',
    notes:
      'Live categories, hidden ones included, by group position then their own. `groupId` filters to one group.',
  }),
  operationRoute(operations.categories.reorder, {
    method: 'post',
    path: `${categories}/reorder`,
    status: 204,
    tag,
    notes:
      'Sets the group and position of each listed category atomically. An id listed twice answers 400 ' +
      '`REORDER_DUPLICATE_ID`; an unknown category or group answers 400 `REORDER_UNKNOWN_ID`; nothing changes then.',
    errors: { 400: ['REORDER_DUPLICATE_ID', 'REORDER_UNKNOWN_ID'], 409: ['CATEGORY_NAME_TAKEN'] },
  }),
  operationRoute(operations.categories.update, {
    method: 'patch',
    path: `${categories}/{categoryId}`,
    status: 200,
    tag,
    response: CategorySchema,
    responseDescription: 'The updated category.',
    notes: 'Rename, hide, reposition or move to another group (last there unless `position` is given).',
    errors: { 409: ['CATEGORY_NAME_TAKEN'] },
  }),
  operationRoute(operations.categories.delete, {
    method: 'delete',
    path: `${categories}/{categoryId}`,
    status: 204,
    tag,
    notes: 'Soft delete. Transactions keep it; payees that defaulted to it lose the default.',
  }),
  operationRoute(operations.categoryGroups.create, {
    method: 'post',
    path: groups,
    status: 201,
    tag,
    clientIds: ['id'],
    response: CategoryGroupSchema,
    responseDescription: 'The new group, with its (empty) categories.',
    notes: 'Goes last unless `position` is given. Names are unique in the household, ignoring case.',
    errors: { 409: ['CATEGORY_GROUP_NAME_TAKEN', 'ID_ALREADY_EXISTS'] },
    present: (group) => withCategories(group as CategoryGroup),
  }),
  operationRoute(operations.categoryGroups.list, {
    method: 'get',
    path: groups,
    status: 200,
    tag,
    response: CategoryGroupListSchema,
    responseDescription: 'The groups.',
    notes: 'Live groups by position, each with its live categories nested in order.',
    present: (list) => ({ items: (list as { items: CategoryGroup[] }).items.map(withCategories) }),
  }),
  operationRoute(operations.categoryGroups.update, {
    method: 'patch',
    path: `${groups}/{groupId}`,
    status: 200,
    tag,
    response: CategoryGroupSchema,
    responseDescription: 'The updated group, with its categories.',
    errors: { 409: ['CATEGORY_GROUP_NAME_TAKEN'] },
    present: (group) => withCategories(group as CategoryGroup),
  }),
  operationRoute(operations.categoryGroups.delete, {
    method: 'delete',
    path: `${groups}/{groupId}`,
    status: 204,
    tag,
    notes: 'Soft delete of the group and all its live categories.',
  }),
  operationRoute(operations.catalog.seedStarterPack, {
    method: 'post',
    path: '/households/{householdId}/starter-pack',
    status: 201,
    tag,
    summary: 'Seed the starter category pack',
    clientIds: ['seedId'],
    optionalBody: true,
    response: StarterPackResultSchema,
    responseDescription: 'What was created and what was skipped.',
    notes:
      "Creates starter groups and categories in the household's data language (en, de, fr or es; others get en). " +
      'Idempotent by name: live groups with a pack name are reused and categories whose name exists are skipped.',
  }),
]
