import { type Kysely, sql } from 'kysely'
import { logChanges } from './change-log-trigger.ts'

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

  await sql`
    create function hearth_budget_activity_add(h text, d date, acc text, cat text, cents bigint)
    returns void language plpgsql as $$
    declare
      m text := to_char(d, 'YYYY-MM');
    begin
      if cents = 0 then
        return;
      end if;
      insert into budget_activity (household_id, id, month, account_id, category_id, amount_cents)
      values (h, m || ':' || acc || ':' || coalesce(cat, ''), m, acc, cat, cents)
      on conflict (household_id, id) do update set amount_cents = budget_activity.amount_cents + excluded.amount_cents;
    end;
    $$`.execute(db)

  // A row's contribution: its amount uncategorized or in its category, plus each split part
  // moved from uncategorized to the part's category; sign -1 takes it away.
  await sql`
    create function hearth_budget_activity_row(t transactions, sign integer) returns void language plpgsql as $$
    declare
      s record;
    begin
      if t.deleted_at is not null or t.merged_into_id is not null or t.transfer_group_id is not null then
        return;
      end if;
      perform hearth_budget_activity_add(t.household_id, t.date, t.account_id, t.category_id, sign * t.amount_cents);
      for s in select amount_cents, category_id from transaction_splits
               where household_id = t.household_id and transaction_id = t.id loop
        perform hearth_budget_activity_add(t.household_id, t.date, t.account_id, s.category_id, sign * s.amount_cents);
        perform hearth_budget_activity_add(t.household_id, t.date, t.account_id, null, -sign * s.amount_cents);
      end loop;
    end;
    $$`.execute(db)

  await sql`
    create function hearth_budget_activity_transactions() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE'
         and old.date = new.date and old.account_id = new.account_id and old.amount_cents = new.amount_cents
         and old.category_id is not distinct from new.category_id
         and old.deleted_at is not distinct from new.deleted_at
         and old.merged_into_id is not distinct from new.merged_into_id
         and old.transfer_group_id is not distinct from new.transfer_group_id then
        return null;
      end if;
      if tg_op in ('UPDATE', 'DELETE') then
        perform hearth_budget_activity_row(old, -1);
      end if;
      if tg_op in ('INSERT', 'UPDATE') then
        perform hearth_budget_activity_row(new, 1);
      end if;
      return null;
    end;
    $$`.execute(db)
  await sql`
    create trigger transactions_budget_activity after insert or update or delete on transactions
    for each row execute function hearth_budget_activity_transactions()`.execute(db)

  await sql`
    create function hearth_budget_activity_split(s transaction_splits, sign integer) returns void language plpgsql as $$
    declare
      t transactions;
    begin
      select * into t from transactions where household_id = s.household_id and id = s.transaction_id;
      if found and t.deleted_at is null and t.merged_into_id is null and t.transfer_group_id is null then
        perform hearth_budget_activity_add(t.household_id, t.date, t.account_id, s.category_id, sign * s.amount_cents);
        perform hearth_budget_activity_add(t.household_id, t.date, t.account_id, null, -sign * s.amount_cents);
      end if;
    end;
    $$`.execute(db)
  await sql`
    create function hearth_budget_activity_splits() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' and old.amount_cents = new.amount_cents
         and old.category_id is not distinct from new.category_id and old.transaction_id = new.transaction_id then
        return null;
      end if;
      if tg_op in ('UPDATE', 'DELETE') then
        perform hearth_budget_activity_split(old, -1);
      end if;
      if tg_op in ('INSERT', 'UPDATE') then
        perform hearth_budget_activity_split(new, 1);
      end if;
      return null;
    end;
    $$`.execute(db)
  await sql`
    create trigger transaction_splits_budget_activity after insert or update or delete on transaction_splits
    for each row execute function hearth_budget_activity_splits()`.execute(db)

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

  await logChanges(db, 'budget_activity')
}
