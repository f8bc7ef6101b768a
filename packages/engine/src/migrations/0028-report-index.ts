import { type Kysely, sql } from 'kysely'

/**
 * The spending report (the assistant's `reports.spending`) and the forecasts sum a household's
 * rows of a period. 0023's covering index held what the forecasts read but not the row's id (the
 * split join) or its payee (a payee's spending), so both went to the table for every row. This
 * one holds them too, so a vacuumed store (the `store.maintain` job vacuums every ten minutes)
 * answers from the index alone; it replaces 0023's, which it covers.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index transactions_report_idx on transactions (household_id, date)
    include (id, account_id, category_id, payee_id, amount_cents, source)
    where deleted_at is null and merged_into_id is null and kind = 'normal' and transfer_group_id is null`.execute(
    db,
  )
  await sql`drop index if exists transactions_spending_idx`.execute(db)
}
