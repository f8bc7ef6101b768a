import { type Kysely, sql } from 'kysely'

/**
 * Shared notes (issue 30): one Yjs document per account, category, budget month or transaction,
 * edited live over `/notes/ws/...` and read as plain text over REST. Both tables stay on the
 * server (no change-log trigger): a device holds its notes in a Yjs cache of its own, never in
 * its replica.
 *
 * - `notes`: one row per document: `state` is every update up to `compacted_seq` merged into one
 *   (null before the first compaction), `text` the note's plain text as of the last write (what
 *   REST reads), `updated_at` when it last changed.
 * - `note_updates`: the updates written since, in `seq` order; compaction merges them into
 *   `state` and deletes them, under a lock on the `notes` row.
 *
 * A target that is deleted (soft: `deleted_at` set, or a transaction merged into another; or
 * hard) takes its note with it, by the triggers below, wherever the delete comes from; each such
 * delete is announced on `hearth_notes` (`deleted:<household>:<kind>:<id>`) so every instance
 * closes the note's live sockets. The triggers carry the server-rows gate (migration 0019), since
 * the target tables are synced tables that devices apply.
 */
const GATE = `current_setting('hearth.server_rows', true) is distinct from 'on'`

const TARGETS = [
  ['accounts', 'account', 'old.deleted_at is null and new.deleted_at is not null'],
  ['categories', 'category', 'old.deleted_at is null and new.deleted_at is not null'],
  [
    'transactions',
    'transaction',
    '(old.deleted_at is null and new.deleted_at is not null) or (old.merged_into_id is null and new.merged_into_id is not null)',
  ],
] as const

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table notes (
      household_id text not null references households (id) on delete cascade,
      target_kind text not null check (target_kind in ('account', 'category', 'month', 'transaction')),
      target_id text not null,
      state bytea,
      compacted_seq bigint not null default 0,
      text text not null default '',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (household_id, target_kind, target_id)
    )`.execute(db)
  await sql`
    create table note_updates (
      household_id text not null,
      target_kind text not null,
      target_id text not null,
      seq bigint generated always as identity,
      data bytea not null,
      created_at timestamptz not null default now(),
      primary key (household_id, target_kind, target_id, seq),
      foreign key (household_id, target_kind, target_id)
        references notes (household_id, target_kind, target_id) on delete cascade
    )`.execute(db)
  await sql`
    create function hearth_delete_target_note() returns trigger language plpgsql as $$
    begin
      delete from notes where household_id = old.household_id and target_kind = tg_argv[0] and target_id = old.id;
      if found then
        perform pg_notify('hearth_notes', 'deleted:' || old.household_id || ':' || tg_argv[0] || ':' || old.id);
      end if;
      return null;
    end $$`.execute(db)
  for (const [table, kind, deleted] of TARGETS) {
    await sql
      .raw(`
      create trigger ${table}_note_soft_delete after update on ${table} for each row
      when ((${deleted}) and ${GATE})
      execute function hearth_delete_target_note('${kind}')`)
      .execute(db)
    await sql
      .raw(`
      create trigger ${table}_note_delete after delete on ${table} for each row when (${GATE})
      execute function hearth_delete_target_note('${kind}')`)
      .execute(db)
  }
}
