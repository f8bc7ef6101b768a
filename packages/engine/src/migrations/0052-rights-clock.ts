import { type Kysely, sql } from 'kysely'

/**
 * The rights clock: one number that every change to a caller's rights moves, so a server instance
 * can ask once a second whether any rights changed (one row read) instead of reading the rights of
 * every live session (10,000 holders in one statement, each second). Migration 0020's triggers
 * announce each change on `hearth_rights` as it commits; the clock is what an instance that lost
 * an announcement (a dropped LISTEN connection) finds it by.
 *
 * The clock moves in constraint triggers deferred to commit, on the same changes 0020 announces:
 * a transaction takes the clock's row lock last, when it holds every other lock it will take, so
 * two transactions changing rights never wait on each other in a cycle. Like 0020's triggers they
 * carry the server-rows gate (migration 0019); on a device the clock moves unread.
 */
const GATE = `current_setting('hearth.server_rows', true) is distinct from 'on'`

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table rights_clock (
      one boolean primary key default true check (one),
      version bigint not null default 0
    )`.execute(db)
  await sql`insert into rights_clock default values`.execute(db)
  await sql`
    create function hearth_move_rights_clock() returns trigger language plpgsql as $$
    begin
      update rights_clock set version = version + 1;
      return null;
    end $$`.execute(db)
  const triggers: [name: string, table: string, event: string, when: string][] = [
    [
      'api_keys_rights_clock_update',
      'api_keys',
      'update',
      `(old.revoked_at is distinct from new.revoked_at or old.scopes is distinct from new.scopes
        or old.user_id is distinct from new.user_id) and ${GATE}`,
    ],
    ['api_keys_rights_clock_delete', 'api_keys', 'delete', GATE],
    [
      'memberships_rights_clock_update',
      'memberships',
      'update',
      `(old.role is distinct from new.role or old.user_id is distinct from new.user_id
        or old.household_id is distinct from new.household_id) and ${GATE}`,
    ],
    ['memberships_rights_clock_delete', 'memberships', 'delete', GATE],
  ]
  for (const [name, table, event, when] of triggers) {
    await sql
      .raw(`
      create constraint trigger ${name} after ${event} on ${table}
      deferrable initially deferred for each row when (${when})
      execute function hearth_move_rights_clock()`)
      .execute(db)
  }
}
