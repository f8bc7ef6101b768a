import { FlagListSchema, FlagSchema } from '@hearth/contracts'
import { operations } from '@hearth/engine'
import { operationRoute } from '../http/operation-route.ts'

const tag = 'Flags'
const flags = '/households/{householdId}/flags'

/** Flag CRUD. */
export const flagRoutes = [
  operationRoute(operations.flags.list, {
    method: 'get',
    path: flags,
    status: 200,
    tag,
    response: FlagListSchema,
    responseDescription: 'The flags.',
    notes: 'Every flag by position, then id. New households start with six default flags.',
  }),
  operationRoute(operations.flags.create, {
    method: 'post',
    path: flags,
    status: 201,
    tag,
    clientIds: ['id'],
    response: FlagSchema,
    responseDescription: 'The new flag.',
    notes: 'Goes last unless `position` is given. Names are unique, ignoring case (409 `FLAG_NAME_TAKEN`).',
    errors: { 409: ['FLAG_NAME_TAKEN', 'ID_ALREADY_EXISTS'] },
  }),
  operationRoute(operations.flags.update, {
    method: 'patch',
    path: `${flags}/{flagId}`,
    status: 200,
    tag,
    response: FlagSchema,
    responseDescription: 'The updated flag.',
    errors: { 409: ['FLAG_NAME_TAKEN'] },
  }),
  operationRoute(operations.flags.delete, {
    method: 'delete',
    path: `${flags}/{flagId}`,
    status: 204,
    tag,
    notes: 'Deletes the flag for good and removes it from every transaction it was on.',
  }),
]
