import { EngineError } from '../../../errors.ts'
import { defineMutator } from '../../../mutator/define.ts'
import { type ReferenceUse, requireReferences } from '../../references.ts'
import { splitCategoryConflict, transactionReconciled } from '../errors.ts'
import { BulkUpdateTransactionsArgsSchema } from '../schema.ts'
import { addLinks, hydrate, removeLinks, type TransactionUpdate, updateTransactions } from '../writes.ts'

/**
 * Applies one patch (category, status, memo, payee, flags, tags to add and to remove) to up
 * to 500 live rows atomically. Reconciled rows follow the usual rules: only `cleared` moves
 * them, and rows become reconciled only through reconcile.
 */
export const bulkUpdateTransactions = defineMutator({
  audience: 'device',
  description:
    'Applies one patch (category, status, memo, payee, flags, tags to add and to remove) to up to 500 live rows atomically.',
  scope: 'write:transactions',
  args: BulkUpdateTransactionsArgsSchema,
  async run(tx, args, ctx): Promise<{ count: number }> {
    const { ids, patch } = args
    const householdId = ctx.householdId
    const found = await tx
      .selectFrom('transactions')
      .selectAll()
      .where('household_id', '=', householdId)
      .where('id', 'in', ids)
      .where('deleted_at', 'is', null)
      .where('merged_into_id', 'is', null)
      .execute()
    const byId = new Map(found.map((r) => [r.id, r]))
    const missing = ids.findIndex((id) => !byId.has(id))
    if (missing >= 0) {
      throw new EngineError(404, 'NOT_FOUND', `Transaction ${ids[missing]} (ids.${missing}) was not found.`, {
        errors: [{ path: `ids.${missing}`, message: 'Transaction not found.', code: 'not_found' }],
        extra: { resource: 'Transaction', path: `ids.${missing}`, index: missing },
      })
    }
    const rows = ids.map((id) => byId.get(id)!)
    const uses: ReferenceUse[] = []
    if (patch.categoryId) uses.push({ table: 'categories', id: patch.categoryId, path: 'patch.categoryId' })
    if (patch.payeeId) uses.push({ table: 'payees', id: patch.payeeId, path: 'patch.payeeId' })
    patch.flagIds?.forEach((id, i) => {
      uses.push({ table: 'flags', id, path: `patch.flagIds.${i}` })
    })
    patch.addTagIds?.forEach((id, i) => {
      uses.push({ table: 'tags', id, path: `patch.addTagIds.${i}` })
    })
    patch.removeTagIds?.forEach((id, i) => {
      uses.push({ table: 'tags', id, path: `patch.removeTagIds.${i}` })
    })
    await requireReferences(tx, householdId, uses)

    rows.forEach((row, index) => {
      const at = { prefix: 'patch.', index }
      if (patch.status === 'reconciled' && row.status !== 'reconciled') {
        throw new EngineError(
          400,
          'STATUS_NOT_ALLOWED',
          `Row ${index}: rows become reconciled only through reconcile.`,
          {
            errors: [{ path: 'patch.status', message: 'Use POST accounts/{accountId}/reconcile.' }],
            extra: { index },
          },
        )
      }
      if (patch.status === 'pending' && row.status === 'reconciled') {
        throw transactionReconciled(row.id, 'set back to pending', at)
      }
    })
    if (patch.categoryId) {
      const split = await tx
        .selectFrom('transaction_splits')
        .select('transaction_id')
        .where('household_id', '=', householdId)
        .where('transaction_id', 'in', ids)
        .executeTakeFirst()
      if (split) throw splitCategoryConflict({ prefix: 'patch.', index: ids.indexOf(split.transaction_id) })
    }

    const set: TransactionUpdate = {
      ...(patch.categoryId !== undefined && { category_id: patch.categoryId }),
      ...(patch.categoryId && {
        suggested_category_id: null,
        suggestion_confidence: null,
        suggestion_reason: null,
        needs_review: false,
      }),
      ...(patch.status !== undefined && { status: patch.status }),
      ...(patch.memo !== undefined && { memo: patch.memo }),
      ...(patch.payeeId !== undefined && { payee_id: patch.payeeId }),
      updated_at: ctx.now,
    }
    const updated = await updateTransactions(tx, householdId, rows, set)
    if (patch.flagIds !== undefined) {
      await removeLinks(tx, householdId, 'flags', ids)
      await addLinks(
        tx,
        householdId,
        'flags',
        ids.flatMap((id) => patch.flagIds!.map((f) => [id, f] as const)),
      )
    }
    if (patch.removeTagIds?.length) await removeLinks(tx, householdId, 'tags', ids, patch.removeTagIds)
    if (patch.addTagIds?.length) {
      await addLinks(
        tx,
        householdId,
        'tags',
        ids.flatMap((id) => patch.addTagIds!.map((t) => [id, t] as const)),
      )
    }
    for (const transaction of await hydrate(tx, householdId, updated)) {
      ctx.emit('transaction.updated', { transaction })
    }
    return { count: updated.length }
  },
})
