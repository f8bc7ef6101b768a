import { conflict, notFound } from '../errors.ts'
import { transactionReconciled } from '../ledger/transactions/errors.ts'
import { unfoldBankRow } from '../ledger/transactions/matching.ts'
import { hydrate, updateTransactions } from '../ledger/transactions/writes.ts'
import { defineMutator } from '../mutator/define.ts'
import { type ImportBatch, toImportBatch } from './model.ts'
import { ImportIdArgsSchema } from './schema.ts'

/**
 * Undoes a whole import batch in one transaction: its new rows are deleted and its bank rows
 * folded into hand-entered twins are separated and deleted, the twins regaining their date and
 * status as unmatch gives them. Refused, naming the row, when one has been reconciled or linked
 * as a transfer since. The deleted rows give up their imported ids, so the file can come in again.
 */
export const undoImport = defineMutator({
  audience: 'device',
  description:
    'Undoes a whole import batch: removes its new rows and separates its matched rows, unless one was reconciled since.',
  scope: 'write:transactions',
  args: ImportIdArgsSchema,
  async run(tx, args, ctx): Promise<ImportBatch> {
    const h = ctx.householdId
    const batch = await tx
      .selectFrom('import_batches')
      .selectAll()
      .where('household_id', '=', h)
      .where('id', '=', args.id)
      .executeTakeFirst()
    if (!batch) throw notFound('Import', args.id)
    if (batch.undone_at)
      throw conflict('IMPORT_ALREADY_UNDONE', `Import ${batch.id} was undone already.`, {
        importId: batch.id,
      })
    const view = toImportBatch(batch)
    const ids = [
      ...view.transactionIds,
      ...view.matched.flatMap((m) => [m.transactionId, m.matchedTransactionId]),
    ]
    const rows =
      ids.length === 0
        ? []
        : await tx
            .selectFrom('transactions')
            .selectAll()
            .where('household_id', '=', h)
            .where('id', 'in', ids)
            .execute()
    const byId = new Map(rows.map((r) => [r.id, r]))
    for (const id of ids) {
      const row = byId.get(id)
      if (!row || row.deleted_at) continue
      if (row.status === 'reconciled') throw transactionReconciled(row.id, 'removed by undoing the import')
      if (row.transfer_group_id) {
        throw conflict(
          'IMPORT_ROW_LINKED',
          `Transaction ${row.id} was linked as a transfer since the import; unlink it first.`,
          { transactionId: row.id },
        )
      }
    }
    const bankRows = []
    for (const m of view.matched) {
      const survivor = byId.get(m.matchedTransactionId)
      const bank = byId.get(m.transactionId)
      if (!bank || bank.deleted_at) continue
      if (survivor && survivor.matched_transaction_id === bank.id) {
        const [restored, returned] = await unfoldBankRow(tx, h, survivor, bank, ctx.now)
        const transaction = (await hydrate(tx, h, [restored]))[0]!
        ctx.emit('transaction.updated', { transaction })
        bankRows.push(returned)
      } else bankRows.push(bank)
    }
    const own = view.transactionIds.flatMap((id) => {
      const row = byId.get(id)
      return row && !row.deleted_at ? [row] : []
    })
    const ownIds = new Set(own.map((o) => o.id))
    const deleted = await updateTransactions(tx, h, [...own, ...bankRows], {
      deleted_at: ctx.now,
      imported_id: null,
      updated_at: ctx.now,
    })
    for (const transaction of await hydrate(
      tx,
      h,
      deleted.filter((r) => ownIds.has(r.id)),
    ))
      ctx.emit('transaction.deleted', { transaction })
    const undone = await tx
      .updateTable('import_batches')
      .set({ undone_at: ctx.now })
      .where('household_id', '=', h)
      .where('id', '=', batch.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    return toImportBatch(undone)
  },
})
