import type { Kysely, Transaction as Tx } from 'kysely'
import type { Database } from '../../database.ts'
import type { TransactionRow } from '../tables.ts'

type Db = Kysely<Database> | Tx<Database>

/** The other live leg of a row's transfer, or null when it is not (or no longer) part of one. */
export async function findCounterpart(
  db: Db,
  householdId: string,
  row: TransactionRow,
): Promise<TransactionRow | null> {
  if (!row.transfer_group_id) return null
  const other = await db
    .selectFrom('transactions')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('transfer_group_id', '=', row.transfer_group_id)
    .where('id', '!=', row.id)
    .where('deleted_at', 'is', null)
    .where('merged_into_id', 'is', null)
    .orderBy('id')
    .executeTakeFirst()
  return other ?? null
}
