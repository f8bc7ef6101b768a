import { type Kysely, sql } from 'kysely'
import { logRowChanges } from './change-log-trigger.ts'
import { byStatementOp } from './statement-triggers.ts'

/**
 * What the ledger adds to the budget, kept summed per month, account and category, so the
 * month snapshot reads a few thousand sums instead of every row. Triggers on transactions and
 * splits keep it in the same transaction as the rows, for live rows that are not transfer legs
 * (transfer legs are few and read directly). A split row adds its amount uncategorized, and each
 * part moves its amount from uncategorized to its category. The table syncs like any other: a
 * device's own writes update it through the same triggers, and the server's rows replace it
 * when they arrive (in replica mode, where these triggers do not fire).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table budget_activity (
      household_id text not null,
      id text not null,
      month text not null,
      account_id text not null,
      category_id text,
      amount_cents bigint not null,
      primary key (household_id, id)
    )`.execute(db)
  await sql`create index budget_activity_month_idx on budget_activity (household_id, month)`.execute(db)
  // The overrun check reads a few categories' sums.
  await sql`create index budget_activity_category_idx on budget_activity (household_id, category_id, month)`.execute(
    db,
  )

  // A statement's rows change the sums once per (month, account, category): bulk writes stay cheap.
  const contributions = (rows: string, sign: string) => `
      select t.household_id, to_char(t.date, 'YYYY-MM') as month, t.account_id, t.category_id,
             ${sign} * t.amount_cents as amount
      from ${rows} t
      where t.deleted_at is null and t.merged_into_id is null and t.transfer_group_id is null
      union all
      select t.household_id, to_char(t.date, 'YYYY-MM'), t.account_id, x.category_id, ${sign} * x.amount
      from ${rows} t
      join transaction_splits s on s.household_id = t.household_id and s.transaction_id = t.id
      cross join lateral (values (s.category_id, s.amount_cents), (null, -s.amount_cents)) as x(category_id, amount)
      where t.deleted_at is null and t.merged_into_id is null and t.transfer_group_id is null`
  const splitContributions = (rows: string, sign: string) => `
      select t.household_id, to_char(t.date, 'YYYY-MM') as month, t.account_id, x.category_id, ${sign} * x.amount as amount
      from ${rows} s
      join transactions t on t.household_id = s.household_id and t.id = s.transaction_id
      cross join lateral (values (s.category_id, s.amount_cents), (null, -s.amount_cents)) as x(category_id, amount)
      where t.deleted_at is null and t.merged_into_id is null and t.transfer_group_id is null`
  const addUp = (changes: string) => `
      insert into budget_activity (household_id, id, month, account_id, category_id, amount_cents)
      select household_id, month || ':' || account_id || ':' || coalesce(category_id, ''), month, account_id,
             category_id, sum(amount)
      from (${changes}) c
      group by household_id, month, account_id, category_id
      having sum(amount) <> 0
      on conflict (household_id, id) do update set amount_cents = budget_activity.amount_cents + excluded.amount_cents`

  // A row's contribution is its amount in its category (or uncategorized), plus each split part
  // moved from uncategorized to its category, taken with the splits as they stand when the
  // statement ends; a change to the row or to a part adds the new contribution and takes the old.
  await sql
    .raw(`
    create function hearth_budget_activity_transactions() returns trigger language plpgsql as $$
    ${byStatementOp(
      addUp(contributions('new_rows', '1')),
      addUp(`${contributions('old_rows', '-1')} union all ${contributions('new_rows', '1')}`),
      addUp(contributions('old_rows', '-1')),
    )}
    $$`)
    .execute(db)
  await sql
    .raw(`
    create function hearth_budget_activity_splits() returns trigger language plpgsql as $$
    ${byStatementOp(
      addUp(splitContributions('new_rows', '1')),
      addUp(`${splitContributions('old_rows', '-1')} union all ${splitContributions('new_rows', '1')}`),
      addUp(splitContributions('old_rows', '-1')),
    )}
    $$`)
    .execute(db)
  for (const [table, fn] of [
    ['transactions', 'hearth_budget_activity_transactions'],
    ['transaction_splits', 'hearth_budget_activity_splits'],
  ] as const) {
    await sql
      .raw(`create trigger ${table}_budget_activity_insert after insert on ${table}
        referencing new table as new_rows for each statement execute function ${fn}()`)
      .execute(db)
    await sql
      .raw(`create trigger ${table}_budget_activity_update after update on ${table}
        referencing old table as old_rows new table as new_rows for each statement execute function ${fn}()`)
      .execute(db)
    await sql
      .raw(`create trigger ${table}_budget_activity_delete after delete on ${table}
        referencing old table as old_rows for each statement execute function ${fn}()`)
      .execute(db)
  }

  // Rows written before this migration.
  await sql`
    insert into budget_activity (household_id, id, month, account_id, category_id, amount_cents)
    select household_id, month || ':' || account_id || ':' || coalesce(category_id, ''), month, account_id, category_id, sum(amount)
    from (
      select t.household_id, to_char(t.date, 'YYYY-MM') as month, t.account_id, t.category_id, t.amount_cents as amount
      from transactions t
      where t.deleted_at is null and t.merged_into_id is null and t.transfer_group_id is null
      union all
      select t.household_id, to_char(t.date, 'YYYY-MM'), t.account_id, x.category_id, x.amount
      from transactions t
      join transaction_splits s on s.household_id = t.household_id and s.transaction_id = t.id
      cross join lateral (values (s.category_id, s.amount_cents), (null, -s.amount_cents)) as x(category_id, amount)
      where t.deleted_at is null and t.merged_into_id is null and t.transfer_group_id is null
    ) rows
    group by 1, 2, 3, 4, 5
    having sum(amount) <> 0`.execute(db)

  // 0007's covering index for summing the ledger is not read any more; it only slowed writes.
  await sql`drop index if exists transactions_budget_idx`.execute(db)

  await logRowChanges(db, 'budget_activity')
}
