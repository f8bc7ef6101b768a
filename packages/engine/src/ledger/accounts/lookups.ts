import { type Kysely, sql, type Transaction as Tx } from 'kysely'
import type { Database } from '../../database.ts'
import { conflict, notFound } from '../../errors.ts'
import type { MutationContext } from '../../mutator/context.ts'
import type { AccountRow, TransactionKind } from '../tables.ts'
import { type Transaction, toTransaction } from '../transactions/model.ts'
import { insertTransactions } from '../transactions/writes.ts'

type Db = Kysely<Database> | Tx<Database>

/** The live (not soft-deleted) account with this id in the household, or 404. */
export async function requireAccount(db: Db, householdId: string, id: string): Promise<AccountRow> {
  const row = await db
    .selectFrom('accounts')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst()
  if (!row) throw notFound('Account', id)
  return row
}

/** The position after the last live account of a display group. */
export async function nextAccountPosition(db: Db, householdId: string, group: string): Promise<number> {
  const { next } = await db
    .selectFrom('accounts')
    .select(sql<number>`coalesce(max(position)::bigint + 1, 0)`.as('next'))
    .where('household_id', '=', householdId)
    .where('group_name', '=', group)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow()
  return Math.min(next, 2_147_483_647)
}

/** 409 ID_ALREADY_EXISTS when a caller-chosen id is taken in the table, deleted rows included. */
export async function assertIdFree(
  db: Db,
  table: 'accounts' | 'transactions',
  householdId: string,
  id: string,
  path = 'id',
): Promise<void> {
  const row = await db
    .selectFrom(table)
    .select('id')
    .where('household_id', '=', householdId)
    .where('id', '=', id)
    .executeTakeFirst()
  if (row) throw conflict('ID_ALREADY_EXISTS', `The id ${id} is already in use.`, { id, path })
}

/**
 * Books a row the system owns (an opening balance or an adjustment): cleared, without payee
 * or category, and announced like any other new transaction.
 */
export async function bookSystemRow(
  tx: Tx<Database>,
  ctx: MutationContext,
  row: {
    id: string
    account: AccountRow
    kind: Exclude<TransactionKind, 'normal'>
    amountCents: number
    date: string
  },
  idPath: string,
): Promise<Transaction> {
  await assertIdFree(tx, 'transactions', ctx.householdId, row.id, idPath)
  const [inserted] = await insertTransactions(tx, ctx.householdId, [
    {
      row: {
        household_id: ctx.householdId,
        id: row.id,
        account_id: row.account.id,
        date: row.date,
        amount_cents: row.amountCents,
        payee_id: null,
        category_id: null,
        memo: null,
        status: 'cleared',
        source: 'manual',
        kind: row.kind,
        imported_id: null,
        transfer_group_id: null,
        suggested_category_id: null,
        suggestion_confidence: null,
        suggestion_reason: null,
        matched_transaction_id: null,
        merged_into_id: null,
        prematch_date: null,
        prematch_status: null,
        created_at: ctx.now,
        updated_at: ctx.now,
      },
      splits: [],
      tagIds: [],
      flagIds: [],
    },
  ])
  const transaction = toTransaction(inserted!)
  ctx.emit('transaction.created', { transaction })
  return transaction
}
