import { PayeeListSchema, PayeeSchema } from '@hearth/contracts'
import { operations } from '@hearth/engine'
import { operationRoute } from '../http/operation-route.ts'

const tag = 'Payees'
const payees = '/households/{householdId}/payees'

/** Payee CRUD. */
export const payeeRoutes = [
  operationRoute(operations.payees.create, {
    method: 'post',
    path: payees,
    status: 201,
    tag,
    clientIds: ['id'],
    response: PayeeSchema,
    responseDescription: 'The new payee.',
    notes: 'No two live payees may share a normalized name (409 `PAYEE_NAME_TAKEN`).',
    errors: { 409: ['PAYEE_NAME_TAKEN', 'ID_ALREADY_EXISTS'] },
  }),
  operationRoute(operations.payees.list, {
    method: 'get',
    path: payees,
    status: 200,
    tag,
    response: PayeeListSchema,
    responseDescription: 'The payees.',
    notes: 'Every live payee, by normalized name, then id. Not paginated.',
  }),
  operationRoute(operations.payees.get, {
    method: 'get',
    path: `${payees}/{payeeId}`,
    status: 200,
    tag,
    response: PayeeSchema,
    responseDescription: 'The payee.',
  }),
  operationRoute(operations.payees.update, {
    method: 'patch',
    path: `${payees}/{payeeId}`,
    status: 200,
    tag,
    response: PayeeSchema,
    responseDescription: 'The updated payee.',
    notes: 'A rename recomputes `normalizedName`. `categoryId: null` clears the default category.',
    errors: { 409: ['PAYEE_NAME_TAKEN'] },
  }),
  operationRoute(operations.payees.delete, {
    method: 'delete',
    path: `${payees}/{payeeId}`,
    status: 204,
    tag,
    notes: 'Soft delete. Transactions keep it; its name is free for a new payee.',
  }),
]
