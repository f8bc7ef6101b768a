import { type Kysely, sql } from 'kysely'
import { attachStatementTriggers, byStatementOp, EVERY_WRITE } from './statement-triggers.ts'

/**
 * What the ledger spends, kept summed per day, account, category and whether the row was booked
 * by a recurrence, so a month's forecast reads a few thousand sums instead of seven months of
 * rows (`forecasts/forecast.ts`). It counts what the forecast counts: live rows of kind `normal`
 * that are not transfer legs; a split row counts its parts in their categories, and nothing of
 * its own (its amount in its category, less each part there, is zero once the parts add up).
 *
 * Like `budget_closings` it is derived data each store keeps from its own rows and never syncs:
 * its triggers fire in replica mode and for the server's rows too (`enable always`), so a device's
 * sums follow whatever its ledger holds, however the rows arrived. Statement triggers add a
 * statement's change once per (day, account, category, recurring), so bulk writes stay cheap.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table forecast_days (
      household_id text not null,
      date date not null,
      account_id text not null,
      category_id text not null,
      recurring boolean not null,
      spent_cents bigint not null,
      primary key (household_id, date, account_id, category_id, recurring)
    )`.execute(db)

  // `category_id` is '' for uncategorized spending (a key column cannot be null).
  const live = `t.deleted_at is null and t.merged_into_id is null and t.transfer_group_id is null
      and t.kind = 'normal'`
  const contributions = (rows: string, sign: string) => `
      select t.household_id, t.date, t.account_id, coalesce(t.category_id, '') as category_id,
             t.source = 'recurring' as recurring, ${sign} * -t.amount_cents as spent
      from ${rows} t
      where ${live}
      union all
      select t.household_id, t.date, t.account_id, x.category_id, t.source = 'recurring', ${sign} * x.spent
      from ${rows} t
      join transaction_splits s on s.household_id = t.household_id and s.transaction_id = t.id
      cross join lateral (values (coalesce(s.category_id, t.category_id, ''), -s.amount_cents),
        (coalesce(t.category_id, ''), s.amount_cents)) as x(category_id, spent)
      where ${live}`
  const splitContributions = (rows: string, sign: string) => `
      select t.household_id, t.date, t.account_id, x.category_id, t.source = 'recurring' as recurring,
             ${sign} * x.spent as spent
      from ${rows} s
      join transactions t on t.household_id = s.household_id and t.id = s.transaction_id
      cross join lateral (values (coalesce(s.category_id, t.category_id, ''), -s.amount_cents),
        (coalesce(t.category_id, ''), s.amount_cents)) as x(category_id, spent)
      where ${live}`
  const addUp = (changes: string) => `
      insert into forecast_days (household_id, date, account_id, category_id, recurring, spent_cents)
      select household_id, date, account_id, category_id, recurring, sum(spent)
      from (${changes}) c
      group by household_id, date, account_id, category_id, recurring
      having sum(spent) <> 0
      on conflict (household_id, date, account_id, category_id, recurring)
      do update set spent_cents = forecast_days.spent_cents + excluded.spent_cents`

  for (const [fn, of] of [
    ['hearth_forecast_days_transactions', contributions],
    ['hearth_forecast_days_splits', splitContributions],
  ] as const) {
    await sql
      .raw(`
    create function ${fn}() returns trigger language plpgsql as $$
    ${byStatementOp(
      addUp(of('new_rows', '1')),
      addUp(`${of('old_rows', '-1')} union all ${of('new_rows', '1')}`),
      addUp(of('old_rows', '-1')),
    )}
    $$`)
      .execute(db)
  }
  for (const [table, fn] of [
    ['transactions', 'hearth_forecast_days_transactions'],
    ['transaction_splits', 'hearth_forecast_days_splits'],
  ] as const) {
    await attachStatementTriggers(db, table, 'forecast_days', fn, EVERY_WRITE)
  }

  // Rows written before this migration.
  await sql
    .raw(`
    insert into forecast_days (household_id, date, account_id, category_id, recurring, spent_cents)
    select household_id, date, account_id, category_id, recurring, sum(spent)
    from (${contributions('transactions', '1')}) c
    group by 1, 2, 3, 4, 5
    having sum(spent) <> 0`)
    .execute(db)
}
