import { sql } from 'kysely'
import { conflict } from '../../errors.ts'
import { defineMutator } from '../../mutator/define.ts'
import { callerToday } from '../local-day.ts'
import type { Transaction } from '../transactions/model.ts'
import { lockClearedRows } from '../transactions/writes.ts'
import { bookSystemRow, requireAccount } from './lookups.ts'
import { type Account, toAccount } from './model.ts'
import { AccountIdArgsSchema, CloseAccountArgsSchema, ReconcileAccountArgsSchema } from './schema.ts'

/**
 * Reconciles an open account against a bank statement: a gap between the statement balance
 * and the cleared balance as of the statement date is booked as an adjustment row, then every
 * cleared row on or before that date becomes reconciled.
 */
export const reconcileAccount = defineMutator({
  audience: 'device',
  description:
    'Reconciles an open account against a bank statement: a gap between the statement balance and the cleared balance as of the statement date is booked as an adjustment row, then every cleared row on or before that date becomes reconciled.',
  scope: 'write:accounts',
  args: ReconcileAccountArgsSchema,
  async run(
    tx,
    args,
    ctx,
  ): Promise<{ account: Account; adjustment: Transaction | null; reconciledCount: number }> {
    const account = await requireAccount(tx, ctx.householdId, args.id)
    if (account.status !== 'open') {
      throw conflict('ACCOUNT_CLOSED', `Account ${account.id} is closed; reopen it to reconcile.`)
    }
    const statementDate = args.statementDate ?? (await callerToday(tx, ctx))
    const { cleared } = await tx
      .selectFrom('transactions')
      .select(sql<number>`coalesce(sum(amount_cents), 0)::bigint`.as('cleared'))
      .where('household_id', '=', ctx.householdId)
      .where('account_id', '=', account.id)
      .where('deleted_at', 'is', null)
      .where('merged_into_id', 'is', null)
      .where('status', 'in', ['cleared', 'reconciled'])
      .where('date', '<=', statementDate)
      .executeTakeFirstOrThrow()
    const gap = args.statementBalanceCents - cleared
    const adjustment =
      gap === 0
        ? null
        : await bookSystemRow(
            tx,
            ctx,
            { id: args.adjustmentId, account, kind: 'adjustment', amountCents: gap, date: statementDate },
            'adjustmentId',
          )
    const reconciledCount = await lockClearedRows(tx, ctx.householdId, account.id, statementDate, ctx.now)
    const after = toAccount(await requireAccount(tx, ctx.householdId, account.id))
    const reconciledAdjustment = adjustment && { ...adjustment, status: 'reconciled' as const }
    ctx.emit('account.reconciled', {
      account: after,
      statementDate,
      statementBalanceCents: String(args.statementBalanceCents),
      adjustment: reconciledAdjustment,
      reconciledCount,
    })
    return { account: after, adjustment: reconciledAdjustment, reconciledCount }
  },
})

/**
 * Closes an open account; a remaining balance is booked as an adjustment dated on the
 * caller's local day, so a closed account always holds zero.
 */
export const closeAccount = defineMutator({
  audience: 'device',
  description: 'Closes an open account.',
  scope: 'write:accounts',
  args: CloseAccountArgsSchema,
  async run(tx, args, ctx): Promise<{ account: Account; adjustment: Transaction | null }> {
    const account = await requireAccount(tx, ctx.householdId, args.id)
    if (account.status !== 'open')
      throw conflict('ACCOUNT_NOT_OPEN', `Account ${account.id} is already closed.`)
    const adjustment =
      account.balance_cents === 0
        ? null
        : await bookSystemRow(
            tx,
            ctx,
            {
              id: args.adjustmentId,
              account,
              kind: 'adjustment',
              amountCents: -account.balance_cents,
              date: await callerToday(tx, ctx),
            },
            'adjustmentId',
          )
    const row = await tx
      .updateTable('accounts')
      .set({ status: 'closed', closed_at: ctx.now, updated_at: ctx.now })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', account.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    const closed = toAccount(row)
    ctx.emit('account.closed', { account: closed, adjustment })
    return { account: closed, adjustment }
  },
})

/** Returns a closed account to open. */
export const reopenAccount = defineMutator({
  audience: 'device',
  description: 'Returns a closed account to open.',
  scope: 'write:accounts',
  args: AccountIdArgsSchema,
  async run(tx, args, ctx) {
    const account = await requireAccount(tx, ctx.householdId, args.id)
    if (account.status !== 'closed')
      throw conflict('ACCOUNT_NOT_CLOSED', `Account ${account.id} is not closed.`)
    const row = await tx
      .updateTable('accounts')
      .set({ status: 'open', closed_at: null, updated_at: ctx.now })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', account.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    const reopened = toAccount(row)
    ctx.emit('account.reopened', { account: reopened })
    return reopened
  },
})
