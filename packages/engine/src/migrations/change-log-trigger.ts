import { type Kysely, sql } from 'kysely'

/**
 * The trigger function behind the change log. It writes one row per changed row, stamped with
 * the version the mutation wrapper set for this transaction (`hearth.version`). Outside a
 * mutation (a device's local store, a migration) the setting is empty and nothing is logged.
 */
export async function createChangeLogFunction(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function hearth_log_change() returns trigger language plpgsql as $$
    declare
      v text := current_setting('hearth.version', true);
      r jsonb;
    begin
      if v is null or v = '' then
        return null;
      end if;
      if tg_op = 'DELETE' then
        r := to_jsonb(old);
      else
        r := to_jsonb(new);
      end if;
      insert into change_log (household_id, version, table_name, row_id, op, row)
      values (
        coalesce(r ->> 'household_id', r ->> 'id'),
        v::bigint,
        tg_table_name,
        r ->> coalesce(tg_argv[0], 'id'),
        case when tg_op = 'DELETE' then 'delete' else 'upsert' end,
        case when tg_op = 'DELETE' then null else r end
      );
      return null;
    end;
    $$`.execute(db)
}

/**
 * Attaches the change-log trigger to a household table, so no mutator has to remember it.
 * `keyColumn` names the column that identifies a row within its household (default `id`).
 */
export async function logRowChanges(db: Kysely<unknown>, table: string, keyColumn = 'id'): Promise<void> {
  await sql`
    create trigger ${sql.id(`${table}_change_log`)}
    after insert or update or delete on ${sql.table(table)}
    for each row execute function hearth_log_change(${sql.lit(keyColumn)})`.execute(db)
}

/**
 * Attaches the change log to a household table, so no mutator has to remember it: three
 * statement-level triggers (insert, update, delete) that log a statement's rows in one INSERT
 * from its transition tables (migrations/0014-statement-change-log.ts). `keyColumn` names the
 * column that identifies a row within its household (default `id`).
 */
export async function logChanges(db: Kysely<unknown>, table: string, keyColumn = 'id'): Promise<void> {
  for (const [op, referencing] of [
    ['insert', 'new table as new_rows'],
    ['update', 'old table as old_rows new table as new_rows'],
    ['delete', 'old table as old_rows'],
  ] as const) {
    await sql`
      create trigger ${sql.id(`${table}_change_log_${op}`)}
      after ${sql.raw(op)} on ${sql.table(table)} referencing ${sql.raw(referencing)}
      for each statement execute function hearth_log_changes(${sql.lit(keyColumn)})`.execute(db)
  }
}
