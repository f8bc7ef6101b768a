import { type Kysely, sql } from 'kysely'

/**
 * Sync bookkeeping on both sides, and the SQL that moves rows between replicas.
 *
 * Server: `sync_clients` (one row per device, with the last mutation id it processed) and
 * `sync_rejections` (why a device's mutation was refused, replayed to the device on reconnect).
 * Device: `device_state` (cursor and identity), `device_pending` (the local outbox of mutations
 * the server has not confirmed) and `device_undo` (old row images per pending mutation).
 *
 * The change-log trigger function learns a second mode: while `hearth.undo` names a pending
 * mutation (only ever on a device), it records the row's old image for a rebase to undo
 * instead of logging a change. The `hearth_sync_*` functions upsert and delete rows by table
 * key; a device runs them with `session_replication_role = replica`, so the server's rows land
 * without re-running foreign keys, constraint triggers or the log trigger. A trigger on the
 * household clock announces each new version on the channel `hearth_household`, so every server
 * instance on one PostgreSQL wakes its devices.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table sync_clients (
      client_id text primary key,
      household_id text not null references households (id),
      user_id text not null references users (id),
      device_name text,
      lmid bigint not null default 0,
      created_at timestamptz not null default now(),
      last_seen_at timestamptz not null default now()
    )`.execute(db)
  await sql`create index sync_clients_household_idx on sync_clients (household_id)`.execute(db)

  await sql`
    create table sync_rejections (
      client_id text not null references sync_clients (client_id),
      mutation_id bigint not null,
      name text not null,
      status integer not null,
      code text not null,
      message text not null,
      created_at timestamptz not null default now(),
      primary key (client_id, mutation_id)
    )`.execute(db)

  await sql`
    create table device_state (
      household_id text primary key,
      client_id text not null,
      user_id text,
      role text,
      scopes text[] not null default '{}',
      version bigint,
      lmid bigint not null default 0
    )`.execute(db)

  await sql`
    create table device_pending (
      mutation_id bigint primary key,
      name text not null,
      args jsonb not null,
      created_at timestamptz not null
    )`.execute(db)

  await sql`
    create table device_undo (
      seq bigserial primary key,
      mutation_id bigint not null,
      table_name text not null,
      household_id text not null,
      row_id text not null,
      row jsonb
    )`.execute(db)

  await sql`
    create or replace function hearth_log_change() returns trigger language plpgsql as $$
    declare
      v text := current_setting('hearth.version', true);
      u text := current_setting('hearth.undo', true);
      k text := coalesce(tg_argv[0], 'id');
      r jsonb;
      o jsonb;
    begin
      if tg_op = 'DELETE' then
        r := to_jsonb(old);
      else
        r := to_jsonb(new);
      end if;
      if u is not null and u <> '' then
        if tg_op = 'INSERT' then
          o := null;
        else
          o := to_jsonb(old);
        end if;
        insert into device_undo (mutation_id, table_name, household_id, row_id, row)
        values (u::bigint, tg_table_name, coalesce(o ->> 'household_id', o ->> 'id', r ->> 'household_id', r ->> 'id'),
                coalesce(o, r) ->> k, o);
        -- A key change leaves a row under the new key that the undo must remove too.
        if tg_op = 'UPDATE' and (to_jsonb(old) ->> k) is distinct from (r ->> k) then
          insert into device_undo (mutation_id, table_name, household_id, row_id, row)
          values (u::bigint, tg_table_name, coalesce(r ->> 'household_id', r ->> 'id'), r ->> k, null);
        end if;
        return null;
      end if;
      if v is null or v = '' then
        return null;
      end if;
      insert into change_log (household_id, version, table_name, row_id, op, row)
      values (
        coalesce(r ->> 'household_id', r ->> 'id'),
        v::bigint,
        tg_table_name,
        r ->> k,
        case when tg_op = 'DELETE' then 'delete' else 'upsert' end,
        case when tg_op = 'DELETE' then null else r end
      );
      return null;
    end;
    $$`.execute(db)

  // Every version bump is announced to other server instances; NOTIFY is delivered at commit.
  await sql`
    create function hearth_notify_household() returns trigger language plpgsql as $$
    begin
      perform pg_notify('hearth_household', new.household_id || ':' || new.version);
      return null;
    end;
    $$`.execute(db)
  await sql`
    create trigger household_clock_notify after insert or update on household_clock
    for each row execute function hearth_notify_household()`.execute(db)

  // The primary-key columns of a table, in key order.
  await sql`
    create function hearth_sync_key(tbl text) returns text[] language sql stable as $$
      select array_agg(a.attname::text order by k.ord)
      from pg_index i
      cross join lateral unnest(i.indkey) with ordinality as k(attnum, ord)
      join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
      where i.indrelid = tbl::regclass and i.indisprimary
    $$`.execute(db)

  // Every table the change log covers: the tables a household's replica holds.
  await sql`
    create function hearth_synced_tables() returns setof text language sql stable as $$
      select c.relname::text
      from pg_trigger t
      join pg_class c on c.oid = t.tgrelid
      join pg_proc p on p.oid = t.tgfoid
      where p.proname = 'hearth_log_change' and not t.tgisinternal
      order by c.relname
    $$`.execute(db)

  // Inserts or replaces rows given as full JSON images, matching on the primary key.
  await sql`
    create function hearth_sync_upsert(tbl text, rows jsonb) returns void language plpgsql as $$
    declare
      pk text[] := hearth_sync_key(tbl);
      cols text;
      sets text;
    begin
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

  // Deletes one row by its key within a household (or by id, for a table keyed by id alone).
  await sql`
    create function hearth_sync_delete(tbl text, household text, row_key text) returns void language plpgsql as $$
    declare
      pk text[] := hearth_sync_key(tbl);
    begin
      if array_length(pk, 1) = 1 then
        execute format('delete from %I where %I = $1', tbl, pk[1]) using row_key;
      elsif array_length(pk, 1) = 2 and pk[1] = 'household_id' then
        execute format('delete from %I where household_id = $1 and %I = $2', tbl, pk[2]) using household, row_key;
      else
        raise exception 'table % has a key sync cannot address: %', tbl, pk;
      end if;
    end;
    $$`.execute(db)

  // Deletes rows of a household by their keys, in one statement.
  await sql`
    create function hearth_sync_delete_keys(tbl text, household text, row_keys text[]) returns void
    language plpgsql as $$
    declare
      pk text[] := hearth_sync_key(tbl);
    begin
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

  // Applies row changes one by one, in order: the exact sequence the server wrote.
  await sql`
    create function hearth_sync_apply_ordered(household text, changes jsonb) returns void language plpgsql as $$
    declare
      c jsonb;
    begin
      for c in select e.value from jsonb_array_elements(changes) with ordinality as e(value, n) order by e.n loop
        if c ->> 'op' = 'delete' then
          perform hearth_sync_delete(c ->> 'table', household, c ->> 'id');
        else
          perform hearth_sync_upsert(c ->> 'table', jsonb_build_array(c -> 'row'));
        end if;
      end loop;
    end;
    $$`.execute(db)

  // Applies the final state of each changed row (row image, or null for gone), a statement per
  // table. The final states are consistent as a whole; if an intermediate one trips a unique
  // index, the block rolls back and the changes are applied in their exact order instead.
  await sql`
    create function hearth_sync_apply_final(household text, finals jsonb, changes jsonb) returns void
    language plpgsql as $$
    declare
      tbl text;
    begin
      begin
        for tbl in select distinct f ->> 'table' from jsonb_array_elements(finals) f loop
          perform hearth_sync_delete_keys(tbl, household, array(
            select f ->> 'id' from jsonb_array_elements(finals) f
            where f ->> 'table' = tbl and jsonb_typeof(f -> 'row') is distinct from 'object'));
          perform hearth_sync_upsert(tbl, coalesce((
            select jsonb_agg(f -> 'row') from jsonb_array_elements(finals) f
            where f ->> 'table' = tbl and jsonb_typeof(f -> 'row') = 'object'), '[]'::jsonb));
        end loop;
      exception when unique_violation or exclusion_violation then
        perform hearth_sync_apply_ordered(household, changes);
      end;
    end;
    $$`.execute(db)

  // Applies row changes in the change log's shape: the last change of each row wins.
  await sql`
    create function hearth_sync_apply(household text, changes jsonb) returns void language plpgsql as $$
    begin
      perform hearth_sync_apply_final(household, coalesce((
        select jsonb_agg(jsonb_build_object('table', t, 'id', i, 'row', r))
        from (
          select distinct on (c ->> 'table', c ->> 'id') c ->> 'table' as t, c ->> 'id' as i,
            case when c ->> 'op' = 'delete' then null else c -> 'row' end as r
          from jsonb_array_elements(changes) with ordinality as e(c, n)
          order by c ->> 'table', c ->> 'id', n desc
        ) last), '[]'::jsonb), changes);
    end;
    $$`.execute(db)

  // Removes every replicated row of a household, before a snapshot replaces them.
  await sql`
    create function hearth_sync_clear(household text) returns void language plpgsql as $$
    declare
      tbl text;
    begin
      for tbl in select hearth_synced_tables() loop
        if array_length(hearth_sync_key(tbl), 1) = 1 then
          execute format('delete from %I where id = $1', tbl) using household;
        else
          execute format('delete from %I where household_id = $1', tbl) using household;
        end if;
      end loop;
    end;
    $$`.execute(db)

  // Undoes every pending mutation's writes on a device: each row they touched goes back to its
  // oldest image (the one from before the first pending mutation), then the images are forgotten.
  await sql`
    create function hearth_sync_undo() returns integer language plpgsql as $$
    declare
      n integer;
      household text;
      ordered jsonb;
    begin
      select count(*) into n from device_undo;
      if n = 0 then
        return 0;
      end if;
      select min(household_id) into household from device_undo;
      -- The exact reverse order, for the fallback: each image undoes one write.
      select jsonb_agg(jsonb_build_object('table', table_name, 'id', row_id,
               'op', case when row is null then 'delete' else 'upsert' end, 'row', row) order by seq desc)
        into ordered from device_undo;
      perform hearth_sync_apply_final(household, (
        select jsonb_agg(jsonb_build_object('table', table_name, 'id', row_id, 'row', row))
        from (
          select distinct on (table_name, row_id) table_name, row_id, row
          from device_undo order by table_name, row_id, seq
        ) oldest), ordered);
      delete from device_undo;
      return n;
    end;
    $$`.execute(db)
}
