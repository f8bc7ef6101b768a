import { operations } from '@hearth/engine'
import { ClientId, HouseholdParams, z } from '../http/route.ts'

/** The OpenAPI tag of every transactions route. */
export const tags = ['Transactions']

/** `{transactionId}` in a path. */
export const TransactionParams = HouseholdParams.extend({ transactionId: z.string() })

/** A new row's id, which the caller may choose; the route makes one otherwise. */
/**
 * One new transaction as a request carries it: the engine's input with `id` optional. Rebuilt
 * from the shape because zod cannot loosen a refined object; the engine checks the
 * cross-field rule (payeeId or payeeName) when it parses the arguments again.
 */
export const NewTransactionBody = z.strictObject({
  ...operations.transactions.create.args.shape,
  id: ClientId,
})
