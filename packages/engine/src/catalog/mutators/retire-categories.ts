import type { Transaction } from 'kysely'
import type { Database } from '../../database.ts'
import type { MutationContext } from '../../mutator/context.ts'
import { toPayee } from '../model.ts'

/**
 * Soft-deletes categories and clears every payee default that points at them, so a new
 * transaction never inherits a deleted category. Transactions keep their category ids: the
 * rows still exist, and history stays intact.
 */
export async function retireCategories(
  tx: Transaction<Database>,
  ctx: MutationContext,
  ids: readonly string[],
): Promise<void> {
  if (ids.length === 0) return
  await tx
    .updateTable('categories')
    .set({ deleted_at: ctx.now, updated_at: ctx.now })
    .where('household_id', '=', ctx.householdId)
    .where('id', 'in', ids)
    .where('deleted_at', 'is', null)
    .execute()
  const payees = await tx
    .updateTable('payees')
    .set({ category_id: null, updated_at: ctx.now })
    .where('household_id', '=', ctx.householdId)
    .where('category_id', 'in', ids)
    .returningAll()
    .execute()
  for (const id of ids) ctx.emit('category.deleted', { id })
  for (const payee of payees) {
    if (payee.deleted_at === null)
      ctx.emit('payee.updated', { payee: toPayee(payee), changes: ['categoryId'] })
  }
}
