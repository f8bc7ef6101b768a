import { conflict } from '../../../errors.ts'
import { defineMutator } from '../../../mutator/define.ts'
import { buildDrafts, markBankFed } from '../drafts.ts'
import { SINGLE } from '../errors.ts'
import type { Transaction } from '../model.ts'
import { type LedgerHooks, runDrafted, runWritten } from '../pipeline.ts'
import { CreateTransactionArgsSchema } from '../schema.ts'
import { hydrate, insertTransactions } from '../writes.ts'

/**
 * Creates one row on an open account, with its splits (which must sum to it), tags and flags,
 * and books it on the account's balances; the transaction pipeline's steps see it drafted and
 * written.
 */
export function defineCreateTransaction(hooks: LedgerHooks) {
  return defineMutator({
    audience: 'device',
    description:
      "Creates one row on an open account, with its splits (which must sum to it), tags and flags, and books it on the account's balances.",
    scope: 'write:transactions',
    args: CreateTransactionArgsSchema,
    async run(tx, args, ctx): Promise<Transaction> {
      const { drafts } = await buildDrafts(tx, ctx, [{ input: args, at: SINGLE }], hooks)
      if (args.importedId) {
        const twin = await tx
          .selectFrom('transactions')
          .select('id')
          .where('household_id', '=', ctx.householdId)
          .where('account_id', '=', args.accountId)
          .where('imported_id', '=', args.importedId)
          .where('deleted_at', 'is', null)
          .executeTakeFirst()
        if (twin) {
          throw conflict(
            'DUPLICATE_IMPORTED_ID',
            `The account already has a row with importedId ${args.importedId}.`,
            {
              transactionId: twin.id,
              path: 'importedId',
            },
          )
        }
      }
      await runDrafted(hooks, tx, drafts, ctx, 'create')
      const rows = await insertTransactions(tx, ctx.householdId, drafts)
      await markBankFed(tx, ctx.householdId, drafts, ctx.now)
      await runWritten(hooks, tx, rows, ctx, 'create')
      const transaction = (await hydrate(tx, ctx.householdId, rows))[0]!
      ctx.emit('transaction.created', { transaction })
      return transaction
    },
  })
}
