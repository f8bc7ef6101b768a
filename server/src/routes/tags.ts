import { TagListSchema, TagSchema } from '@hearth/contracts'
import { operations } from '@hearth/engine'
import { operationRoute } from '../http/operation-route.ts'

const tag = 'Tags'
const tags = '/households/{householdId}/tags'

/** Tag CRUD. */
export const tagRoutes = [
  operationRoute(operations.tags.create, {
    method: 'post',
    path: tags,
    status: 201,
    tag,
    clientIds: ['id'],
    response: TagSchema,
    responseDescription: 'The new tag.',
    notes: 'Names are unique in the household, ignoring case (409 `TAG_NAME_TAKEN`).',
    errors: { 409: ['TAG_NAME_TAKEN', 'ID_ALREADY_EXISTS'] },
  }),
  operationRoute(operations.tags.list, {
    method: 'get',
    path: tags,
    status: 200,
    tag,
    response: TagListSchema,
    responseDescription: 'The tags.',
    notes: 'A bare array of Tag objects (not wrapped in `items`), by name ignoring case, then id.',
  }),
  operationRoute(operations.tags.update, {
    method: 'patch',
    path: `${tags}/{tagId}`,
    status: 200,
    tag,
    response: TagSchema,
    responseDescription: 'The updated tag.',
    notes: '`color: null` clears the colour.',
    errors: { 409: ['TAG_NAME_TAKEN'] },
  }),
  operationRoute(operations.tags.delete, {
    method: 'delete',
    path: `${tags}/{tagId}`,
    status: 204,
    tag,
    notes: 'Deletes the tag for good and removes it from every transaction it was on.',
  }),
]
