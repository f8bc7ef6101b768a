import { conflict, EngineError, invalid, notFound } from '../../../errors.ts'
import { defineMutator } from '../../../mutator/define.ts'
import { assertIdFree } from '../../accounts/lookups.ts'
import { requireOpenAccount, requireReferences } from '../../references.ts'
import type { TransactionRow } from '../../tables.ts'
import { buildDrafts } from '../drafts.ts'
import { transactionReconciled } from '../errors.ts'
import type { Transaction } from '../model.ts'
import { CreateTransferArgsSchema, LinkTransferArgsSchema, TransactionIdArgsSchema } from '../schema.ts'
import { findCounterpart } from '../transfer-legs.ts'
import { hydrate, insertTransactions, requireTransaction, updateTransactions } from '../writes.ts'

/**
 * Moves money between two accounts of one currency as two legs of equal and opposite
 * amounts sharing one transfer group (the from leg's id).
 */
export const createTransfer = defineMutator({
  audience: 'device',
  description:
    "Moves money between two accounts of one currency as two legs of equal and opposite amounts sharing one transfer group (the from leg's id).",
  scope: 'write:transactions',
  args: CreateTransferArgsSchema,
  async run(tx, args, ctx): Promise<{ transferGroupId: string; from: Transaction; to: Transaction }> {
    if (args.fromAccountId === args.toAccountId) {
      throw invalid('TRANSFER_SAME_ACCOUNT', 'A transfer needs two different accounts.', [
        { path: 'toAccountId', message: 'Same as fromAccountId.' },
      ])
    }
    if (args.fromTransactionId === args.toTransactionId) {
      throw invalid('DUPLICATE_ID', 'The two legs need two different ids.', [
        { path: 'toTransactionId', message: 'Same as fromTransactionId.' },
      ])
    }
    // Checked here first so refusals name this request's fields (fromAccountId, toTransactionId...).
    const accounts = await requireReferences(tx, ctx.householdId, [
      { table: 'accounts', id: args.fromAccountId, path: 'fromAccountId' },
      { table: 'accounts', id: args.toAccountId, path: 'toAccountId' },
    ])
    const from = accounts.get(args.fromAccountId)!
    const to = accounts.get(args.toAccountId)!
    requireOpenAccount(from, 'fromAccountId')
    requireOpenAccount(to, 'toAccountId')
    if (from.currency !== to.currency) {
      throw new EngineError(
        400,
        'TRANSFER_CURRENCY_MISMATCH',
        `A transfer moves one amount, so both accounts need one currency (${from.currency} and ${to.currency} differ).`,
        { errors: [{ path: 'toAccountId', message: 'Currency differs from fromAccountId.' }] },
      )
    }
    await assertIdFree(tx, 'transactions', ctx.householdId, args.fromTransactionId, 'fromTransactionId')
    await assertIdFree(tx, 'transactions', ctx.householdId, args.toTransactionId, 'toTransactionId')
    const leg = (id: string, accountId: string, amountCents: number) => ({
      input: {
        id,
        accountId,
        amountCents,
        date: args.date,
        memo: args.memo,
        status: args.status,
        tagIds: args.tagIds,
        flagIds: args.flagIds,
      },
      at: { prefix: '' },
    })
    const { drafts } = await buildDrafts(tx, ctx, [
      leg(args.fromTransactionId, args.fromAccountId, -args.amountCents),
      leg(args.toTransactionId, args.toAccountId, args.amountCents),
    ])
    for (const d of drafts) d.row.transfer_group_id = args.fromTransactionId
    const rows = await insertTransactions(tx, ctx.householdId, drafts)
    const [fromLeg, toLeg] = (await hydrate(tx, ctx.householdId, rows)) as [Transaction, Transaction]
    ctx.emit('transaction.created', { transaction: fromLeg })
    ctx.emit('transaction.created', { transaction: toLeg })
    return { transferGroupId: args.fromTransactionId, from: fromLeg, to: toLeg }
  },
})

/** Why two rows cannot be legs of one transfer, or null when they can. */
async function counterpartProblem(
  tx: Parameters<typeof requireTransaction>[0],
  householdId: string,
  row: TransactionRow,
  other: TransactionRow,
): Promise<string | null> {
  if (row.kind !== 'normal' || other.kind !== 'normal') return 'system rows cannot be transfer legs'
  if (other.amount_cents !== -row.amount_cents) return 'the amounts are not exact opposites'
  if (other.account_id === row.account_id) return 'both rows are on the same account'
  const accounts = await tx
    .selectFrom('accounts')
    .select('currency')
    .where('household_id', '=', householdId)
    .where('id', 'in', [row.account_id, other.account_id])
    .execute()
  if (new Set(accounts.map((a) => a.currency)).size > 1) return 'the accounts have different currencies'
  return null
}

/**
 * Links two unlinked rows as the legs of one transfer: opposite amounts, two accounts, one
 * currency. The group id is the id of the row the request names.
 */
export const linkTransfer = defineMutator({
  audience: 'device',
  description:
    'Links two unlinked rows as the legs of one transfer: opposite amounts, two accounts, one currency.',
  scope: 'write:transactions',
  args: LinkTransferArgsSchema,
  async run(tx, args, ctx): Promise<{ transferGroupId: string; transactions: Transaction[] }> {
    const row = await requireTransaction(tx, ctx.householdId, args.id)
    if (args.counterpartId === args.id) {
      throw invalid('NOT_A_TRANSFER_COUNTERPART', 'A row cannot be its own transfer counterpart.', [
        { path: 'counterpartId', message: 'Same as the transaction.' },
      ])
    }
    const other = await requireTransaction(tx, ctx.householdId, args.counterpartId).catch(() => {
      throw notFound('Transaction', args.counterpartId)
    })
    for (const r of [row, other]) {
      if (r.transfer_group_id && (await findCounterpart(tx, ctx.householdId, r))) {
        throw conflict(
          'TRANSFER_ALREADY_LINKED',
          `Transaction ${r.id} is already a leg of a transfer; unlink it first.`,
          {
            transactionId: r.id,
          },
        )
      }
    }
    const problem = await counterpartProblem(tx, ctx.householdId, row, other)
    if (problem) {
      throw invalid('NOT_A_TRANSFER_COUNTERPART', `These rows cannot be linked as a transfer: ${problem}.`, [
        { path: 'counterpartId', message: problem },
      ])
    }
    const linked = await updateTransactions(tx, ctx.householdId, [row, other], {
      transfer_group_id: row.id,
      updated_at: ctx.now,
    })
    const transactions = await hydrate(tx, ctx.householdId, linked)
    for (const transaction of transactions) ctx.emit('transaction.updated', { transaction })
    return { transferGroupId: row.id, transactions }
  },
})

/** Splits a transfer back into two plain rows that keep payee and category; refused while a leg is reconciled. */
export const unlinkTransfer = defineMutator({
  audience: 'device',
  description: 'Splits a transfer back into two plain rows that keep payee and category.',
  scope: 'write:transactions',
  args: TransactionIdArgsSchema,
  async run(tx, args, ctx): Promise<{ transactions: Transaction[] }> {
    const row = await requireTransaction(tx, ctx.householdId, args.id)
    if (!row.transfer_group_id) {
      throw conflict('NOT_A_TRANSFER', `Transaction ${row.id} is not a leg of a transfer.`)
    }
    const counterpart = await findCounterpart(tx, ctx.householdId, row)
    const legs = counterpart ? [row, counterpart] : [row]
    for (const leg of legs) {
      if (leg.status === 'reconciled') throw transactionReconciled(leg.id, 'unlinked from its transfer')
    }
    const unlinked = await updateTransactions(tx, ctx.householdId, legs, {
      transfer_group_id: null,
      updated_at: ctx.now,
    })
    const transactions = await hydrate(tx, ctx.householdId, unlinked)
    for (const transaction of transactions) ctx.emit('transaction.updated', { transaction })
    return { transactions }
  },
})
