import { HouseholdSchema, MemberListSchema } from '@hearth/contracts'
import { operations } from '@hearth/engine'
import { operationRoute } from '../http/operation-route.ts'

const tag = 'Households'

/** Household routes: read and update the household, list its members. */
export const householdRoutes = [
  operationRoute(operations.households.get, {
    method: 'get',
    path: '/households/{householdId}',
    status: 200,
    tag,
    response: HouseholdSchema,
    responseDescription: 'The household.',
  }),
  operationRoute(operations.households.update, {
    method: 'patch',
    path: '/households/{householdId}',
    status: 200,
    tag,
    response: HouseholdSchema,
    responseDescription: 'The updated household.',
  }),
  operationRoute(operations.members.list, {
    method: 'get',
    path: '/households/{householdId}/members',
    status: 200,
    tag,
    response: MemberListSchema,
    responseDescription: 'Owners first, then by join date.',
    present: (items) => ({ items }),
  }),
]
