import { type Kysely, sql } from 'kysely'

/**
 * A household's activity (issue 43): one `activity` row per committed household operation on the
 * server, and in `activity_changes` each row it changed, with the row's image before and after.
 * Both are written in the operation's own transaction: the entry by the mutation wrapper, the
 * row images by the change-log triggers, which learn a third branch here. While a server
 * mutation runs (`hearth.version` set) each row a statement of the mutator changed is also kept
 * with its before and after image, merged per row and operation (the first before, the last
 * after), when the mutation wrapper says the operation is recorded (`hearth.activity_op`, set
 * with the clock). Rows that triggers change as a consequence (the budget's monthly sums) are
 * derived and not kept: the triggers recompute them when the rows they follow are restored. A
 * session with `hearth.activity = 'off'` records nothing (the bench compares a write with and
 * without).
 *
 * The ids a list filters on are read from the images once, here: the transaction (a
 * transaction's own id, or a split's, tag's or flag's `transaction_id`), the account, the
 * category and the month (a budget cell's `month`, a transaction's date's month).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table activity (
      household_id text not null,
      version bigint not null,
      id text not null,
      occurred_at timestamptz not null,
      operation text not null,
      scope text,
      user_id text not null,
      actor_kind text not null,
      actor_ref text,
      undone_by bigint,
      primary key (household_id, version)
    )`.execute(db)
  await sql`create unique index activity_id_idx on activity (household_id, id)`.execute(db)
  await sql`create index activity_user_idx on activity (household_id, user_id, version)`.execute(db)
  await sql`create index activity_occurred_idx on activity (occurred_at)`.execute(db)
  await sql`create index activity_undone_idx on activity (household_id, undone_by) where undone_by is not null`.execute(
    db,
  )

  await sql`
    create table activity_changes (
      household_id text not null,
      version bigint not null,
      table_name text not null,
      row_id text not null,
      seq bigserial not null,
      before jsonb,
      after jsonb,
      transaction_id text,
      account_id text,
      category_id text,
      month text,
      primary key (household_id, version, table_name, row_id)
    )`.execute(db)
  await sql`create index activity_changes_transaction_idx on activity_changes (household_id, transaction_id, version)
    where transaction_id is not null`.execute(db)
  await sql`create index activity_changes_account_idx on activity_changes (household_id, account_id, version)
    where account_id is not null`.execute(db)
  await sql`create index activity_changes_category_idx on activity_changes (household_id, category_id, month, version)
    where category_id is not null`.execute(db)

  await sql
    .raw(`
    create or replace function hearth_log_changes() returns trigger language plpgsql as $$
    declare
      v text := current_setting('hearth.version', true);
      u text := current_setting('hearth.undo', true);
      k text := coalesce(tg_argv[0], 'id');
    begin
      if u is not null and u <> '' then
        if tg_op = 'INSERT' then
          insert into device_undo (mutation_id, table_name, household_id, row_id, row)
          select u::bigint, tg_table_name, coalesce(r ->> 'household_id', r ->> 'id'), r ->> k, null
          from (select to_jsonb(n) as r from new_rows n) x;
        else
          insert into device_undo (mutation_id, table_name, household_id, row_id, row)
          select u::bigint, tg_table_name, coalesce(o ->> 'household_id', o ->> 'id'), o ->> k, o
          from (select to_jsonb(d) as o from old_rows d) x;
          if tg_op = 'UPDATE' then
            -- A key change leaves a row under its new key that the undo must remove too.
            insert into device_undo (mutation_id, table_name, household_id, row_id, row)
            select u::bigint, tg_table_name, coalesce(r ->> 'household_id', r ->> 'id'), r ->> k, null
            from (select to_jsonb(n) as r from new_rows n) x
            where not exists (
              select 1 from (select to_jsonb(d) as o from old_rows d) y
              where coalesce(y.o ->> 'household_id', y.o ->> 'id') = coalesce(x.r ->> 'household_id', x.r ->> 'id')
                and y.o ->> k = x.r ->> k);
          end if;
        end if;
        return null;
      end if;
      if v is null or v = '' then
        return null;
      end if;
      -- Activity: the rows the mutator itself changed (a trigger's own writes are derived), kept
      -- by the same statement that logs them, so each image is made once.
      if pg_trigger_depth() = 1 and current_setting('hearth.activity_op', true) = 'on'
         and current_setting('hearth.activity', true) is distinct from 'off' then
        if tg_op = 'INSERT' then
          ${logAndRecord(
            'select to_jsonb(x) as n from new_rows x',
            `n ->> 'household_id', n ->> 'id'), v::bigint, tg_table_name, n ->> k, 'upsert', n`,
            'select null::jsonb as o, n from imaged',
          )}
        elsif tg_op = 'DELETE' then
          ${logAndRecord(
            'select to_jsonb(d) as o from old_rows d',
            `o ->> 'household_id', o ->> 'id'), v::bigint, tg_table_name, o ->> k, 'delete', null::jsonb`,
            'select o, null::jsonb as n from imaged',
          )}
        else
          ${logAndRecord(
            `select o, n from (select to_jsonb(d) as o from old_rows d) olds
              full join (select to_jsonb(x) as n from new_rows x) news
                on coalesce(o ->> 'household_id', o ->> 'id') = coalesce(n ->> 'household_id', n ->> 'id')
               and o ->> k = n ->> k`,
            `n ->> 'household_id', n ->> 'id'), v::bigint, tg_table_name, n ->> k, 'upsert', n`,
            'select o, n from imaged where o is distinct from n',
            'where n is not null',
          )}
        end if;
        return null;
      end if;
      if tg_op = 'DELETE' then
        insert into change_log (household_id, version, table_name, row_id, op, row)
        select coalesce(r ->> 'household_id', r ->> 'id'), v::bigint, tg_table_name, r ->> k, 'delete', null
        from (select to_jsonb(d) as r from old_rows d) x;
      else
        insert into change_log (household_id, version, table_name, row_id, op, row)
        select coalesce(r ->> 'household_id', r ->> 'id'), v::bigint, tg_table_name, r ->> k, 'upsert', r
        from (select to_jsonb(n) as r from new_rows n) x;
      end if;
      return null;
    end;
    $$`)
    .execute(db)
}

/**
 * One statement that logs a trigger's rows for sync and keeps them as activity: `images` makes
 * each row's image once (`o` before, `n` after), `log` is the change log's columns after its
 * `coalesce(` (taken from `images`, filtered by `logWhere`), and `changes` the rows kept.
 */
function logAndRecord(images: string, log: string, changes: string, logWhere = ''): string {
  return `with imaged as (${images}),
        logged as (
          insert into change_log (household_id, version, table_name, row_id, op, row)
          select coalesce(${log} from imaged ${logWhere}
        )
        insert into activity_changes (household_id, version, table_name, row_id, before, after,
                                      transaction_id, account_id, category_id, month)
        select coalesce(r ->> 'household_id', r ->> 'id'), v::bigint, tg_table_name, r ->> k, o, n,
               case tg_table_name when 'transactions' then r ->> 'id' else r ->> 'transaction_id' end,
               case tg_table_name when 'accounts' then r ->> 'id' else r ->> 'account_id' end,
               case tg_table_name when 'categories' then r ->> 'id' else r ->> 'category_id' end,
               coalesce(r ->> 'month', left(r ->> 'date', 7))
        from (select o, n, coalesce(n, o) as r from (${changes}) s) c
        on conflict (household_id, version, table_name, row_id) do update set after = excluded.after;`
}
