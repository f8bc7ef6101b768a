import { conflict, invalid, notFound } from '../../../errors.ts'
import { defineMutator } from '../../../mutator/define.ts'
import { daysBetween } from '../../model.ts'
import type { TransactionRow } from '../../tables.ts'
import { CANDIDATE_WINDOW_DAYS } from '../candidates.ts'
import { transactionReconciled } from '../errors.ts'
import { foldBankRow, unfoldBankRow } from '../matching.ts'
import { isBankRow, isHandEntered, type Transaction } from '../model.ts'
import { MatchTransactionArgsSchema, TransactionIdArgsSchema } from '../schema.ts'
import { hydrate, requireTransaction, updateTransaction } from '../writes.ts'

/** Why a bank row and a hand-entered row cannot be matched, or null when they can. */
function matchProblem(bank: TransactionRow, hand: TransactionRow): string | null {
  if (bank.account_id !== hand.account_id) return 'they are on different accounts'
  if (bank.amount_cents !== hand.amount_cents) return 'their amounts differ'
  if (Math.abs(daysBetween(bank.date, hand.date)) > CANDIDATE_WINDOW_DAYS) {
    return `they are more than ${CANDIDATE_WINDOW_DAYS} days apart`
  }
  if (bank.transfer_group_id) return 'the bank row is a transfer leg; unlink it first'
  return null
}

/**
 * Matches a bank import with its hand-entered twin (either may be named in the path): the
 * hand-entered row survives with its payee, category, memo, tags and splits, takes the bank
 * date and becomes cleared; the bank row is folded in. Undone by unmatch.
 */
export const matchTransaction = defineMutator({
  audience: 'device',
  description:
    'Matches a bank import with its hand-entered twin (either may be named in the path): the hand-entered row survives with its payee, category, memo, tags and splits, takes the bank date and becomes cleared.',
  scope: 'write:transactions',
  args: MatchTransactionArgsSchema,
  async run(tx, args, ctx): Promise<Transaction> {
    const row = await requireTransaction(tx, ctx.householdId, args.id)
    const other = await requireTransaction(tx, ctx.householdId, args.candidateId).catch(() => {
      throw notFound('Transaction', args.candidateId)
    })
    const bank = isBankRow(row) ? row : isBankRow(other) ? other : null
    const hand = bank === row ? other : row
    if (!bank || !isHandEntered(hand)) {
      throw invalid('NOT_A_MATCH_CANDIDATE', 'A match pairs one bank import with one hand-entered row.', [
        { path: 'candidateId', message: 'Must be of the other kind.' },
      ])
    }
    for (const r of [hand, bank]) {
      if (r.matched_transaction_id) {
        throw conflict(
          'TRANSACTION_ALREADY_MATCHED',
          `Transaction ${r.id} is already matched; unmatch it first.`,
        )
      }
      if (r.status === 'reconciled') throw transactionReconciled(r.id, 'matched')
    }
    const problem = matchProblem(bank, hand)
    if (problem) {
      throw invalid('NOT_A_MATCH_CANDIDATE', `These rows cannot be matched: ${problem}.`, [
        { path: 'candidateId', message: problem },
      ])
    }
    const survivor = await foldBankRow(tx, ctx.householdId, hand, bank, ctx.now)
    const transaction = (await hydrate(tx, ctx.householdId, [survivor]))[0]!
    ctx.emit('transaction.updated', { transaction, matchedTransactionId: bank.id })
    return transaction
  },
})

/**
 * Separates a matched pair (named by either row): the bank row returns as its own row and the
 * hand-entered row regains its date and status from before the match. Refused while reconciled.
 */
export const unmatchTransaction = defineMutator({
  audience: 'device',
  description:
    'Separates a matched pair (named by either row): the bank row returns as its own row and the hand-entered row regains its date and status from before the match.',
  scope: 'write:transactions',
  args: TransactionIdArgsSchema,
  async run(tx, args, ctx): Promise<{ transactions: Transaction[] }> {
    const named = await tx
      .selectFrom('transactions')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst()
    if (!named) throw notFound('Transaction', args.id)
    const survivor = named.merged_into_id
      ? await requireTransaction(tx, ctx.householdId, named.merged_into_id)
      : named
    if (!survivor.matched_transaction_id) {
      throw conflict('NOT_MATCHED', `Transaction ${survivor.id} is not matched with a bank import.`)
    }
    if (survivor.status === 'reconciled') throw transactionReconciled(survivor.id, 'unmatched')
    const bank = await tx
      .selectFrom('transactions')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', survivor.matched_transaction_id)
      .executeTakeFirstOrThrow()
    const rows = await unfoldBankRow(tx, ctx.householdId, survivor, bank, ctx.now)
    const transactions = await hydrate(tx, ctx.householdId, rows)
    for (const transaction of transactions) ctx.emit('transaction.updated', { transaction })
    return { transactions }
  },
})

/** Clears the possible-duplicate marker an ambiguous import left; clearing it twice is harmless. */
export const dismissMatch = defineMutator({
  audience: 'device',
  description: 'Clears the possible-duplicate marker an ambiguous import left.',
  scope: 'write:transactions',
  args: TransactionIdArgsSchema,
  async run(tx, args, ctx): Promise<Transaction> {
    const row = await requireTransaction(tx, ctx.householdId, args.id)
    if (!row.possible_duplicate) return (await hydrate(tx, ctx.householdId, [row]))[0]!
    const after = await updateTransaction(tx, ctx.householdId, row, {
      possible_duplicate: false,
      updated_at: ctx.now,
    })
    const transaction = (await hydrate(tx, ctx.householdId, [after]))[0]!
    ctx.emit('transaction.updated', { transaction })
    return transaction
  },
})
