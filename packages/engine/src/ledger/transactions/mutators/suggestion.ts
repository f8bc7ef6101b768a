import { conflict } from '../../../errors.ts'
import { defineMutator } from '../../../mutator/define.ts'
import { requireReferences } from '../../references.ts'
import type { TransactionRow } from '../../tables.ts'
import type { Transaction } from '../model.ts'
import { type LedgerHooks, runSuggestionRejected, runWritten } from '../pipeline.ts'
import { SuggestCategoryArgsSchema, TransactionIdArgsSchema } from '../schema.ts'
import { hydrate, requireTransaction, updateTransaction } from '../writes.ts'

const CLEARED_SUGGESTION = {
  suggested_category_id: null,
  suggestion_confidence: null,
  suggestion_reason: null,
}

function requireSuggestion(row: TransactionRow): string {
  if (!row.suggested_category_id) {
    throw conflict('NO_SUGGESTION', `Transaction ${row.id} carries no category suggestion.`)
  }
  return row.suggested_category_id
}

/** Records a suggested category on an uncategorized, unsplit row; it marks the row as needing review. */
export const suggestCategory = defineMutator({
  audience: 'server',
  description: 'Records a suggested category on an uncategorized, unsplit row.',
  scope: 'write:transactions',
  args: SuggestCategoryArgsSchema,
  async run(tx, args, ctx): Promise<Transaction> {
    const row = await requireTransaction(tx, ctx.householdId, args.id)
    await requireReferences(tx, ctx.householdId, [
      { table: 'categories', id: args.categoryId, path: 'categoryId' },
    ])
    const [current] = await hydrate(tx, ctx.householdId, [row])
    if (row.category_id || current!.splits.length > 0) {
      throw conflict('TRANSACTION_CATEGORIZED', `Transaction ${row.id} already has a category.`)
    }
    const after = await updateTransaction(tx, ctx.householdId, row, {
      suggested_category_id: args.categoryId,
      suggestion_confidence: args.confidence ?? null,
      suggestion_reason: args.reason ?? null,
      updated_at: ctx.now,
    })
    const transaction = (await hydrate(tx, ctx.householdId, [after]))[0]!
    ctx.emit('transaction.updated', { transaction })
    return transaction
  },
})

/**
 * Takes the suggested category as the row's category and clears the suggestion and review
 * flag. The row is newly categorized, so the pipeline's steps see it as updated (an overrun
 * check, learning).
 */
export function defineAcceptSuggestion(hooks: LedgerHooks) {
  return defineMutator({
    audience: 'device',
    description:
      "Takes the suggested category as the row's category and clears the suggestion and review flag.",
    scope: 'write:transactions',
    args: TransactionIdArgsSchema,
    async run(tx, args, ctx): Promise<Transaction> {
      const row = await requireTransaction(tx, ctx.householdId, args.id)
      const categoryId = requireSuggestion(row)
      const live = await tx
        .selectFrom('categories')
        .select('id')
        .where('household_id', '=', ctx.householdId)
        .where('id', '=', categoryId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst()
      if (!live) {
        throw conflict(
          'SUGGESTION_STALE',
          'The suggested category has been deleted; reject the suggestion instead.',
        )
      }
      const after = await updateTransaction(tx, ctx.householdId, row, {
        category_id: categoryId,
        ...CLEARED_SUGGESTION,
        needs_review: false,
        updated_at: ctx.now,
      })
      await runWritten(hooks, tx, [after], ctx, 'update')
      const transaction = (await hydrate(tx, ctx.householdId, [after]))[0]!
      ctx.emit('transaction.updated', { transaction, acceptedSuggestion: true })
      return transaction
    },
  })
}

/**
 * Drops the suggestion; the row stays uncategorized and no longer needs review, and the
 * pipeline's steps hear of it (the payees domain then never suggests that category for the
 * row's payee again).
 */
export function defineRejectSuggestion(hooks: LedgerHooks) {
  return defineMutator({
    audience: 'device',
    description: 'Drops the suggestion.',
    scope: 'write:transactions',
    args: TransactionIdArgsSchema,
    async run(tx, args, ctx): Promise<Transaction> {
      const row = await requireTransaction(tx, ctx.householdId, args.id)
      requireSuggestion(row)
      await runSuggestionRejected(hooks, tx, row, ctx)
      const after = await updateTransaction(tx, ctx.householdId, row, {
        ...CLEARED_SUGGESTION,
        needs_review: false,
        updated_at: ctx.now,
      })
      const transaction = (await hydrate(tx, ctx.householdId, [after]))[0]!
      ctx.emit('transaction.updated', { transaction, rejectedSuggestion: true })
      return transaction
    },
  })
}
