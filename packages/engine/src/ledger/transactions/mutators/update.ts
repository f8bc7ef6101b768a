import { conflict, EngineError, invalid } from '../../../errors.ts'
import { defineMutator } from '../../../mutator/define.ts'
import { type ReferenceUse, requireOpenAccount, requireReferences } from '../../references.ts'
import type { SplitRow, TransactionRow } from '../../tables.ts'
import { PayeeResolver } from '../drafts.ts'
import { checkSplits, SINGLE, splitSumMismatch, transactionReconciled } from '../errors.ts'
import type { Transaction } from '../model.ts'
import { type LedgerHooks, runWritten } from '../pipeline.ts'
import { type SplitInput, type UpdateTransactionArgs, UpdateTransactionArgsSchema } from '../schema.ts'
import { findCounterpart } from '../transfer-legs.ts'
import {
  hydrate,
  loadDetails,
  replaceLinks,
  replaceSplits,
  requireTransaction,
  type SplitDraft,
  type TransactionUpdate,
  updateTransaction as writeRow,
} from '../writes.ts'

/**
 * Updates one row. A reconciled row keeps its amount, date, account and splits unless the
 * same request sets its status back to cleared; splits, tagIds and flagIds replace whole; the
 * other leg of a transfer follows an amount change with the opposite sign. The transaction
 * pipeline's steps see the changed rows once written.
 */
export function defineUpdateTransaction(hooks: LedgerHooks) {
  return defineMutator({
    audience: 'device',
    description: 'Updates one row.',
    scope: 'write:transactions',
    args: UpdateTransactionArgsSchema,
    async run(tx, args, ctx): Promise<Transaction> {
      const householdId = ctx.householdId
      const before = await requireTransaction(tx, householdId, args.id)
      const details = (await loadDetails(tx, householdId, [before.id])).get(before.id)!
      checkStatusChange(before, args)

      const amount = args.amountCents ?? before.amount_cents
      const accountId = args.accountId ?? before.account_id
      const splits: SplitDraft[] = args.splits
        ? args.splits.map(splitDraft)
        : details.splits.map(splitDraftOfRow)
      const splitsChanged = args.splits !== undefined && !sameSplits(details.splits, args.splits)
      if (before.status === 'reconciled' && args.status !== 'cleared') {
        if (amount !== before.amount_cents) throw transactionReconciled(before.id, 'given a new amount')
        if (args.date !== undefined && args.date !== before.date)
          throw transactionReconciled(before.id, 'moved to another date')
        if (accountId !== before.account_id)
          throw transactionReconciled(before.id, 'moved to another account')
        if (splitsChanged) throw transactionReconciled(before.id, 'split differently')
      }

      // Supplying splits without a category drops the parent's own category.
      const categoryId =
        args.categoryId !== undefined ? args.categoryId : args.splits?.length ? null : before.category_id
      checkSplits(SINGLE, amount, categoryId, splits)

      const accounts = await requireReferences(tx, householdId, referencesOf(args))
      if (accountId !== before.account_id) {
        requireOpenAccount(accounts.get(accountId)!)
        await checkImportedIdFree(tx, householdId, before, accountId)
      }
      const counterpart = await findCounterpart(tx, householdId, before)
      if (counterpart) await checkCounterpart(tx, householdId, before, counterpart, amount, accountId)

      const payeeId =
        args.payeeName !== undefined
          ? await new PayeeResolver(tx, ctx, hooks).resolve(args.payeeName, before.id)
          : args.payeeId !== undefined
            ? args.payeeId
            : before.payee_id
      // Choosing a category is the category decision: suggestion and review flag go.
      const decided = Boolean(args.categoryId) || Boolean(args.splits?.length)
      const set: TransactionUpdate = {
        account_id: accountId,
        date: args.date ?? before.date,
        amount_cents: amount,
        payee_id: payeeId,
        category_id: categoryId,
        ...(args.memo !== undefined && { memo: args.memo }),
        ...(args.status !== undefined && { status: args.status }),
        ...(decided && { suggested_category_id: null, suggestion_confidence: null, suggestion_reason: null }),
        needs_review: args.needsReview ?? (decided ? false : before.needs_review),
        updated_at: ctx.now,
      }
      const after = await writeRow(tx, householdId, before, set)
      if (args.splits !== undefined) await replaceSplits(tx, householdId, before.id, splits)
      if (args.tagIds !== undefined) await replaceLinks(tx, householdId, 'tags', before.id, args.tagIds)
      if (args.flagIds !== undefined) await replaceLinks(tx, householdId, 'flags', before.id, args.flagIds)
      const changed = [after]
      if (counterpart && counterpart.amount_cents !== -amount) {
        changed.push(
          await writeRow(tx, householdId, counterpart, { amount_cents: -amount, updated_at: ctx.now }),
        )
      }
      await runWritten(hooks, tx, changed, ctx, 'update')
      const transactions = await hydrate(tx, householdId, changed)
      for (const transaction of transactions) ctx.emit('transaction.updated', { transaction })
      return transactions[0]!
    },
  })
}

function checkStatusChange(before: TransactionRow, args: UpdateTransactionArgs): void {
  if (args.status === 'reconciled' && before.status !== 'reconciled') {
    throw invalid('STATUS_NOT_ALLOWED', 'Rows become reconciled only through an account reconcile.', [
      { path: 'status', message: 'Use POST accounts/{accountId}/reconcile.' },
    ])
  }
  if (args.status === 'pending' && before.status === 'reconciled') {
    throw transactionReconciled(before.id, 'set back to pending')
  }
}

function referencesOf(args: UpdateTransactionArgs): ReferenceUse[] {
  const uses: ReferenceUse[] = []
  if (args.accountId) uses.push({ table: 'accounts', id: args.accountId, path: 'accountId' })
  if (args.categoryId) uses.push({ table: 'categories', id: args.categoryId, path: 'categoryId' })
  if (args.payeeId) uses.push({ table: 'payees', id: args.payeeId, path: 'payeeId' })
  args.splits?.forEach((s, i) => {
    if (s.categoryId) uses.push({ table: 'categories', id: s.categoryId, path: `splits.${i}.categoryId` })
    if (s.payeeId) uses.push({ table: 'payees', id: s.payeeId, path: `splits.${i}.payeeId` })
  })
  args.tagIds?.forEach((id, i) => {
    uses.push({ table: 'tags', id, path: `tagIds.${i}` })
  })
  args.flagIds?.forEach((id, i) => {
    uses.push({ table: 'flags', id, path: `flagIds.${i}` })
  })
  return uses
}

function splitDraft(s: SplitInput): SplitDraft {
  return {
    amountCents: s.amountCents,
    categoryId: s.categoryId ?? null,
    payeeId: s.payeeId ?? null,
    memo: s.memo ?? null,
  }
}

function splitDraftOfRow(s: SplitRow): SplitDraft {
  return { amountCents: s.amount_cents, categoryId: s.category_id, payeeId: s.payee_id, memo: s.memo }
}

function sameSplits(existing: readonly SplitRow[], next: readonly SplitInput[]): boolean {
  const a = [...existing].sort((x, y) => x.position - y.position).map(splitDraftOfRow)
  const b = next.map(splitDraft)
  return JSON.stringify(a) === JSON.stringify(b)
}

/** A bank row moving accounts must not collide with a live row holding its importedId there. */
async function checkImportedIdFree(
  tx: Parameters<typeof requireTransaction>[0],
  householdId: string,
  before: TransactionRow,
  accountId: string,
): Promise<void> {
  if (!before.imported_id) return
  const twin = await tx
    .selectFrom('transactions')
    .select('id')
    .where('household_id', '=', householdId)
    .where('account_id', '=', accountId)
    .where('imported_id', '=', before.imported_id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst()
  if (twin) {
    throw conflict(
      'DUPLICATE_IMPORTED_ID',
      `The target account already has a row with importedId ${before.imported_id}.`,
      {
        transactionId: twin.id,
        path: 'accountId',
      },
    )
  }
}

/** The other leg must be able to follow: unlocked, unsplit, and on another account in the same currency. */
async function checkCounterpart(
  tx: Parameters<typeof requireTransaction>[0],
  householdId: string,
  before: TransactionRow,
  counterpart: TransactionRow,
  amount: number,
  accountId: string,
): Promise<void> {
  if (amount !== before.amount_cents) {
    if (counterpart.status === 'reconciled') {
      throw transactionReconciled(counterpart.id, 'given a new amount (it is the other leg of this transfer)')
    }
    const split = await tx
      .selectFrom('transaction_splits')
      .select('id')
      .where('household_id', '=', householdId)
      .where('transaction_id', '=', counterpart.id)
      .limit(1)
      .executeTakeFirst()
    if (split) throw splitSumMismatch({ prefix: '' }, counterpart.amount_cents, -amount)
  }
  if (accountId === before.account_id) return
  if (accountId === counterpart.account_id) {
    throw invalid('TRANSFER_SAME_ACCOUNT', 'Both legs of a transfer cannot sit on the same account.', [
      { path: 'accountId', message: 'This is the other leg’s account.' },
    ])
  }
  const currencies = await tx
    .selectFrom('accounts')
    .select(['id', 'currency'])
    .where('household_id', '=', householdId)
    .where('id', 'in', [accountId, counterpart.account_id])
    .execute()
  if (new Set(currencies.map((c) => c.currency)).size > 1) {
    throw new EngineError(
      400,
      'TRANSFER_CURRENCY_MISMATCH',
      'Both legs of a transfer must be in the same currency.',
      {
        errors: [{ path: 'accountId', message: 'Currency differs from the other leg’s account.' }],
      },
    )
  }
}
