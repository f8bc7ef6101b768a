import { deriveUlid } from '../../catalog/index.ts'
import { conflict, EngineError, invalid } from '../../errors.ts'
import { defineMutator } from '../../mutator/define.ts'
import { callerToday } from '../local-day.ts'
import { canConvert, defaultGroupName, isOnBudget, reorderPositions } from '../model.ts'
import type { AccountType } from '../tables.ts'
import { updateTransactions } from '../transactions/writes.ts'
import { assertIdFree, bookSystemRow, nextAccountPosition, requireAccount } from './lookups.ts'
import { type Account, toAccount } from './model.ts'
import {
  ConvertAccountArgsSchema,
  CreateAccountArgsSchema,
  DeleteAccountArgsSchema,
  ReorderAccountsArgsSchema,
  UpdateAccountArgsSchema,
} from './schema.ts'

/** Creates an account; a non-zero opening balance is booked as a cleared opening_balance row. */
export const createAccount = defineMutator({
  audience: 'device',
  description: 'Creates an account.',
  scope: 'write:accounts',
  args: CreateAccountArgsSchema,
  async run(tx, args, ctx) {
    await assertIdFree(tx, 'accounts', ctx.householdId, args.id)
    const household = await tx
      .selectFrom('households')
      .select('base_currency')
      .where('id', '=', ctx.householdId)
      .executeTakeFirstOrThrow()
    const group = args.group ?? defaultGroupName(args.type)
    let row = await tx
      .insertInto('accounts')
      .values({
        household_id: ctx.householdId,
        id: args.id,
        name: args.name,
        type: args.type,
        subtype: args.subtype ?? null,
        currency: args.currency ?? household.base_currency,
        group_name: group,
        position: await nextAccountPosition(tx, ctx.householdId, group),
        bank_fed: args.bankFed ?? false,
        payment_due_day: args.paymentDueDay ?? null,
        bank_account: args.bankAccount ?? null,
        closed_at: null,
        created_at: ctx.now,
        updated_at: ctx.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    const opening = args.openingBalanceCents ?? 0
    if (opening !== 0) {
      await bookSystemRow(
        tx,
        ctx,
        {
          id: args.openingBalanceTransactionId ?? deriveUlid(args.id, 'opening-balance'),
          account: row,
          kind: 'opening_balance',
          amountCents: opening,
          date: args.openingBalanceDate ?? (await callerToday(tx, ctx)),
        },
        'openingBalanceTransactionId',
      )
      row = await requireAccount(tx, ctx.householdId, args.id)
    }
    const account = toAccount(row)
    ctx.emit('account.created', { account })
    return account
  },
})

/** Renames, regroups or re-currencies an account; currency may change only while it has no rows. */
export const updateAccount = defineMutator({
  audience: 'device',
  description: 'Renames, regroups or re-currencies an account.',
  scope: 'write:accounts',
  args: UpdateAccountArgsSchema,
  async run(tx, args, ctx) {
    const before = await requireAccount(tx, ctx.householdId, args.id)
    if (args.currency !== undefined && args.currency !== before.currency) {
      const used = await tx
        .selectFrom('transactions')
        .select('id')
        .where('household_id', '=', ctx.householdId)
        .where('account_id', '=', args.id)
        .where('deleted_at', 'is', null)
        .limit(1)
        .executeTakeFirst()
      if (used) {
        throw conflict(
          'ACCOUNT_HAS_TRANSACTIONS',
          'The currency of an account with transactions cannot change; open a new account in the other currency instead.',
        )
      }
    }
    const regroup = args.group !== undefined && args.group !== before.group_name
    const row = await tx
      .updateTable('accounts')
      .set({
        ...(args.name !== undefined && { name: args.name }),
        ...(args.subtype !== undefined && { subtype: args.subtype }),
        ...(args.bankFed !== undefined && { bank_fed: args.bankFed }),
        ...(args.paymentDueDay !== undefined && { payment_due_day: args.paymentDueDay }),
        ...(args.bankAccount !== undefined && { bank_account: args.bankAccount }),
        ...(args.currency !== undefined && { currency: args.currency }),
        ...(regroup && {
          group_name: args.group,
          position: await nextAccountPosition(tx, ctx.householdId, args.group!),
        }),
        updated_at: ctx.now,
      })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    const account = toAccount(row)
    ctx.emit('account.updated', { account })
    return account
  },
})

/**
 * Sets the manual order of accounts within their groups in one step; every id must name a
 * live account of the household, once.
 */
export const reorderAccounts = defineMutator({
  audience: 'device',
  description: 'Sets the manual order of accounts within their groups in one step.',
  scope: 'write:accounts',
  args: ReorderAccountsArgsSchema,
  async run(tx, args, ctx): Promise<Account[]> {
    const seen = new Set<string>()
    args.accountIds.forEach((id, i) => {
      if (seen.has(id)) {
        throw invalid('DUPLICATE_ID', `Account ${id} appears more than once.`, [
          { path: `accountIds.${i}`, message: 'Repeated id.', code: 'duplicate' },
        ])
      }
      seen.add(id)
    })
    const rows = await tx
      .selectFrom('accounts')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .where('deleted_at', 'is', null)
      .execute()
    const known = new Set(rows.map((r) => r.id))
    args.accountIds.forEach((id, i) => {
      if (!known.has(id)) {
        throw invalid('UNKNOWN_ID', `Account ${id} was not found.`, [
          { path: `accountIds.${i}`, message: 'Unknown account.', code: 'not_found' },
        ])
      }
    })
    const positions = reorderPositions(
      rows.map((r) => ({ id: r.id, group: r.group_name, position: r.position })),
      args.accountIds,
    )
    const moved = rows.filter((r) => positions.get(r.id) !== r.position)
    for (const r of moved) {
      await tx
        .updateTable('accounts')
        .set({ position: positions.get(r.id)!, updated_at: ctx.now })
        .where('household_id', '=', ctx.householdId)
        .where('id', '=', r.id)
        .execute()
    }
    ctx.emit('account.reordered', { accountIds: args.accountIds })
    return rows
      .map((r) => toAccount({ ...r, position: positions.get(r.id)! }))
      .sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : a.position - b.position))
  },
})

/** Changes an account's type without crossing the budget boundary: cash<->credit, loan<->tracking. */
export const convertAccount = defineMutator({
  audience: 'device',
  description:
    "Changes an account's type without crossing the budget boundary: cash<->credit, loan<->tracking.",
  scope: 'write:accounts',
  args: ConvertAccountArgsSchema,
  async run(tx, args, ctx) {
    const before = await requireAccount(tx, ctx.householdId, args.id)
    if (!canConvert(before.type, args.type)) {
      const side = (t: AccountType) => (isOnBudget(t) ? 'on budget' : 'off budget')
      throw new EngineError(
        422,
        'ACCOUNT_CONVERSION_NOT_ALLOWED',
        `A ${before.type} account (${side(before.type)}) cannot become a ${args.type} account (${side(args.type)}): ` +
          `that would move its history across the budget boundary. Open a new ${args.type} account and ` +
          'transfer the balance to it instead, then close this one.',
        { extra: { fromType: before.type, toType: args.type } },
      )
    }
    const row = await tx
      .updateTable('accounts')
      .set({
        type: args.type,
        ...(args.subtype !== undefined && { subtype: args.subtype }),
        updated_at: ctx.now,
      })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    const account = toAccount(row)
    ctx.emit('account.updated', { account, convertedFrom: before.type })
    return account
  },
})

/**
 * Soft-deletes an account and its rows; a non-zero balance needs `force`. Transfer legs in
 * other accounts lose their group, as if unlinked.
 */
export const deleteAccount = defineMutator({
  audience: 'device',
  description: 'Soft-deletes an account and its rows.',
  scope: 'write:accounts',
  args: DeleteAccountArgsSchema,
  async run(tx, args, ctx) {
    const before = await requireAccount(tx, ctx.householdId, args.id)
    if (before.balance_cents !== 0 && !args.force) {
      throw conflict(
        'ACCOUNT_BALANCE_NOT_ZERO',
        `The account still holds ${before.balance_cents} cents; close it first, transfer the balance, or delete with force=true.`,
        { balanceCents: String(before.balance_cents) },
      )
    }
    const rows = await tx
      .selectFrom('transactions')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .where('account_id', '=', args.id)
      .where('deleted_at', 'is', null)
      .execute()
    const groups = [...new Set(rows.map((r) => r.transfer_group_id).filter((g): g is string => g !== null))]
    if (groups.length > 0) {
      const counterparts = await tx
        .selectFrom('transactions')
        .selectAll()
        .where('household_id', '=', ctx.householdId)
        .where('transfer_group_id', 'in', groups)
        .where('account_id', '!=', args.id)
        .execute()
      await updateTransactions(tx, ctx.householdId, counterparts, {
        transfer_group_id: null,
        updated_at: ctx.now,
      })
    }
    await updateTransactions(tx, ctx.householdId, rows, { deleted_at: ctx.now, updated_at: ctx.now })
    const row = await tx
      .updateTable('accounts')
      .set({ deleted_at: ctx.now, updated_at: ctx.now })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    const account = toAccount(row)
    ctx.emit('account.deleted', { account, deletedTransactionCount: rows.length })
    return null
  },
})
