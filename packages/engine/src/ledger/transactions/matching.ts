import type { Transaction as Tx } from 'kysely'
import type { Database } from '../../database.ts'
import { addDays, daysBetween } from '../model.ts'
import type { TransactionRow } from '../tables.ts'
import { CANDIDATE_WINDOW_DAYS } from './candidates.ts'
import { updateTransaction, updateTransactions } from './writes.ts'

/**
 * Folds a bank row into its hand-entered twin. The twin keeps its payee, category, memo, tags
 * and splits, takes the bank date and becomes cleared, remembering its old date and status;
 * the bank row is kept untouched but hidden and outside balances, so unmatch can restore both.
 */
export async function foldBankRow(
  tx: Tx<Database>,
  householdId: string,
  hand: TransactionRow,
  bank: TransactionRow,
  now: Date,
): Promise<TransactionRow> {
  await updateTransaction(tx, householdId, bank, { merged_into_id: hand.id, updated_at: now })
  return updateTransaction(tx, householdId, hand, {
    prematch_date: hand.date,
    prematch_status: hand.status,
    matched_transaction_id: bank.id,
    date: bank.date,
    status: 'cleared',
    updated_at: now,
  })
}

/** Undoes a fold: the bank row returns as its own row and the survivor regains its old date and status. */
export async function unfoldBankRow(
  tx: Tx<Database>,
  householdId: string,
  survivor: TransactionRow,
  bank: TransactionRow,
  now: Date,
): Promise<[TransactionRow, TransactionRow]> {
  const restored = await updateTransaction(tx, householdId, survivor, {
    date: survivor.prematch_date ?? survivor.date,
    status: survivor.prematch_status ?? survivor.status,
    prematch_date: null,
    prematch_status: null,
    matched_transaction_id: null,
    updated_at: now,
  })
  const returned = await updateTransaction(tx, householdId, bank, { merged_into_id: null, updated_at: now })
  return [restored, returned]
}

/** What an import did to its bank rows: folded into a twin, or marked as a possible duplicate. */
export interface AutoMatchResult {
  matched: { bank: TransactionRow; survivor: TransactionRow }[]
  flagged: TransactionRow[]
}

/**
 * Matches freshly imported bank rows, in request order, against hand-entered twins (same
 * account, amount, within 7 days, unmatched, not reconciled). Exactly one twin is matched
 * automatically; several leave the possible-duplicate marker on the bank row.
 */
export async function autoMatch(
  tx: Tx<Database>,
  householdId: string,
  bankRows: readonly TransactionRow[],
  now: Date,
): Promise<AutoMatchResult> {
  const result: AutoMatchResult = { matched: [], flagged: [] }
  if (bankRows.length === 0) return result
  const dates = bankRows.map((r) => r.date).sort()
  const pool = await tx
    .selectFrom('transactions')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('account_id', 'in', [...new Set(bankRows.map((r) => r.account_id))])
    .where('amount_cents', 'in', [...new Set(bankRows.map((r) => r.amount_cents))])
    .where('date', '>=', addDays(dates[0]!, -CANDIDATE_WINDOW_DAYS))
    .where('date', '<=', addDays(dates.at(-1)!, CANDIDATE_WINDOW_DAYS))
    .where('deleted_at', 'is', null)
    .where('merged_into_id', 'is', null)
    .where('matched_transaction_id', 'is', null)
    .where('kind', '=', 'normal')
    .where('source', '!=', 'imported')
    .where('status', '!=', 'reconciled')
    .orderBy('date')
    .orderBy('id')
    .execute()
  const key = (r: TransactionRow) => `${r.account_id}|${r.amount_cents}`
  const byKey = new Map<string, TransactionRow[]>()
  for (const h of pool) byKey.set(key(h), [...(byKey.get(key(h)) ?? []), h])
  const claimed = new Set<string>()
  const flagged: TransactionRow[] = []
  for (const bank of bankRows) {
    const twins = (byKey.get(key(bank)) ?? []).filter(
      (h) => !claimed.has(h.id) && Math.abs(daysBetween(h.date, bank.date)) <= CANDIDATE_WINDOW_DAYS,
    )
    if (twins.length === 1) {
      const hand = twins[0]!
      claimed.add(hand.id)
      result.matched.push({ bank, survivor: await foldBankRow(tx, householdId, hand, bank, now) })
    } else if (twins.length > 1) {
      flagged.push(bank)
    }
  }
  result.flagged = await updateTransactions(tx, householdId, flagged, {
    possible_duplicate: true,
    updated_at: now,
  })
  return result
}
