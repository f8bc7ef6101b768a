import { sql } from 'kysely'
import { defineQuery } from '../../mutator/define.ts'
import { addDays } from '../model.ts'
import type { TransactionRow } from '../tables.ts'
import { isBankRow, type Transaction } from './model.ts'
import { TransactionIdArgsSchema } from './schema.ts'
import { hydrate, requireTransaction } from './writes.ts'

/** How far apart, in days, two rows may be dated and still be candidates for each other. */
export const CANDIDATE_WINDOW_DAYS = 7
/** Most candidates one request lists; the nearest in date come first. */
export const MAX_CANDIDATES = 50

/**
 * Unlinked rows that could be the other leg of this row's transfer: the exact opposite amount,
 * another account in the same currency, within 7 days; nearest date first.
 */
export const transferCandidates = defineQuery({
  audience: 'device',
  description:
    "Unlinked rows that could be the other leg of this row's transfer: the exact opposite amount, another account in the same currency, within 7 days.",
  scope: 'read:transactions',
  args: TransactionIdArgsSchema,
  async run(db, args, ctx): Promise<{ items: Transaction[] }> {
    const row = await requireTransaction(db, ctx.householdId, args.id)
    if (row.kind !== 'normal') return { items: [] }
    const { rows } = await sql<TransactionRow>`
      select t.* from transactions t
      join accounts a on a.household_id = t.household_id and a.id = t.account_id
      where t.household_id = ${ctx.householdId}
        and t.deleted_at is null and t.merged_into_id is null and t.kind = 'normal'
        and t.transfer_group_id is null
        and t.id <> ${row.id}
        and t.account_id <> ${row.account_id}
        and t.amount_cents = ${-row.amount_cents}::bigint
        and t.date between ${addDays(row.date, -CANDIDATE_WINDOW_DAYS)}::date and ${addDays(row.date, CANDIDATE_WINDOW_DAYS)}::date
        and a.deleted_at is null
        and a.currency = (select currency from accounts where household_id = ${ctx.householdId} and id = ${row.account_id})
      order by abs(t.date - ${row.date}::date), t.id
      limit ${MAX_CANDIDATES}`.execute(db)
    return { items: await hydrate(db, ctx.householdId, rows) }
  },
})

/** The live, unmatched rows of the other kind that a row could be matched with. */
export async function findMatchCandidates(
  db: Parameters<typeof requireTransaction>[0],
  householdId: string,
  row: TransactionRow,
): Promise<TransactionRow[]> {
  if (row.kind !== 'normal' || row.matched_transaction_id) return []
  const bank = isBankRow(row)
  // A bank row that is a transfer leg cannot be folded away without breaking its transfer.
  if (bank && row.transfer_group_id) return []
  const { rows } = await sql<TransactionRow>`
    select t.* from transactions t
    where t.household_id = ${householdId}
      and t.deleted_at is null and t.merged_into_id is null and t.kind = 'normal'
      and t.matched_transaction_id is null
      and t.id <> ${row.id}
      and t.account_id = ${row.account_id}
      and t.amount_cents = ${row.amount_cents}::bigint
      and ${bank ? sql`t.source <> 'imported'` : sql`t.source = 'imported' and t.transfer_group_id is null`}
      and t.date between ${addDays(row.date, -CANDIDATE_WINDOW_DAYS)}::date and ${addDays(row.date, CANDIDATE_WINDOW_DAYS)}::date
    order by abs(t.date - ${row.date}::date), t.id
    limit ${MAX_CANDIDATES}`.execute(db)
  return rows
}

/**
 * Twins of the other kind on the same account (so the same currency) with the same amount,
 * within 7 days: hand-entered rows for a bank import, bank imports for a hand-entered row.
 */
export const matchCandidates = defineQuery({
  audience: 'device',
  description:
    'Twins of the other kind on the same account (so the same currency) with the same amount, within 7 days: hand-entered rows for a bank import, bank imports for a hand-entered row.',
  scope: 'read:transactions',
  args: TransactionIdArgsSchema,
  async run(db, args, ctx): Promise<{ items: Transaction[] }> {
    const row = await requireTransaction(db, ctx.householdId, args.id)
    return { items: await hydrate(db, ctx.householdId, await findMatchCandidates(db, ctx.householdId, row)) }
  },
})
