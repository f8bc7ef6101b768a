import { type Kysely, sql } from 'kysely'

/**
 * A device applies every delta through `hearth_sync_apply_final`, which deletes and upserts a
 * statement per table. Most deltas only upsert a row or two, and each empty statement still
 * looked up the table's key and columns in the catalog and planned a dynamic query: about half
 * of a one-row delta's cost. Both functions now return at once when they have nothing to do.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function hearth_sync_upsert(tbl text, rows jsonb) returns void language plpgsql as $$
    declare
      pk text[];
      cols text;
      sets text;
    begin
      if rows is null or jsonb_array_length(rows) = 0 then
        return;
      end if;
      pk := hearth_sync_key(tbl);
      select string_agg(format('%I', attname), ', ' order by attnum),
             string_agg(format('%I = excluded.%I', attname, attname), ', ' order by attnum)
               filter (where not (attname::text = any (pk)))
        into cols, sets
        from pg_attribute
        where attrelid = tbl::regclass and attnum > 0 and not attisdropped and attgenerated = '';
      execute format(
        'insert into %I (%s) select %s from jsonb_populate_recordset(null::%I, $1) on conflict (%s) do %s',
        tbl, cols, cols, tbl,
        (select string_agg(format('%I', c), ', ') from unnest(pk) c),
        case when sets is null then 'nothing' else 'update set ' || sets end)
      using rows;
    end;
    $$`.execute(db)

  await sql`
    create or replace function hearth_sync_delete_keys(tbl text, household text, row_keys text[]) returns void
    language plpgsql as $$
    declare
      pk text[];
    begin
      if coalesce(cardinality(row_keys), 0) = 0 then
        return;
      end if;
      pk := hearth_sync_key(tbl);
      if array_length(pk, 1) = 1 then
        execute format('delete from %I where %I = any ($1)', tbl, pk[1]) using row_keys;
      elsif array_length(pk, 1) = 2 and pk[1] = 'household_id' then
        execute format('delete from %I where household_id = $1 and %I = any ($2)', tbl, pk[2])
          using household, row_keys;
      else
        raise exception 'table % has a key sync cannot address: %', tbl, pk;
      end if;
    end;
    $$`.execute(db)
}
