import { defineMutator } from '../../../mutator/define.ts'
import { requireReferences } from '../../references.ts'
import { transactionReconciled } from '../errors.ts'
import { RemoveTransactionTagArgsSchema, TransactionIdArgsSchema } from '../schema.ts'
import { findCounterpart } from '../transfer-legs.ts'
import { hydrate, removeLinks, requireTransaction, updateTransactions } from '../writes.ts'

/**
 * Soft-deletes a row and takes it off its account's balances; deleting a transfer leg deletes
 * both legs. Reconciled rows are refused.
 */
export const deleteTransaction = defineMutator({
  audience: 'device',
  description: "Soft-deletes a row and takes it off its account's balances.",
  scope: 'write:transactions',
  args: TransactionIdArgsSchema,
  async run(tx, args, ctx) {
    const row = await requireTransaction(tx, ctx.householdId, args.id)
    if (row.status === 'reconciled') throw transactionReconciled(row.id, 'deleted')
    const counterpart = await findCounterpart(tx, ctx.householdId, row)
    if (counterpart?.status === 'reconciled') {
      throw transactionReconciled(counterpart.id, 'deleted (it is the other leg of this transfer)')
    }
    const rows = counterpart ? [row, counterpart] : [row]
    const deleted = await updateTransactions(tx, ctx.householdId, rows, {
      deleted_at: ctx.now,
      updated_at: ctx.now,
    })
    for (const transaction of await hydrate(tx, ctx.householdId, deleted)) {
      ctx.emit('transaction.deleted', { transaction })
    }
    return null
  },
})

/** Removes one tag from a row; removing a tag the row does not carry changes nothing. */
export const removeTransactionTag = defineMutator({
  audience: 'device',
  description: 'Removes one tag from a row.',
  scope: 'write:transactions',
  args: RemoveTransactionTagArgsSchema,
  async run(tx, args, ctx) {
    const row = await requireTransaction(tx, ctx.householdId, args.id)
    await requireReferences(tx, ctx.householdId, [{ table: 'tags', id: args.tagId, path: 'tagId' }])
    const removed = await removeLinks(tx, ctx.householdId, 'tags', [row.id], [args.tagId])
    if (removed > 0) {
      const transaction = (await hydrate(tx, ctx.householdId, [row]))[0]!
      ctx.emit('transaction.updated', { transaction })
    }
    return null
  },
})
