import { type Kysely, sql } from 'kysely'

/**
 * Announces every change to a caller's rights on the channel `hearth_rights`, so each server
 * instance can cut or narrow the live sync sessions it holds within moments of the commit,
 * whoever made the change (a REST call, the CLI, another instance, a hand-written SQL fix):
 *
 * - `key:<keyId>`: an API key was revoked, deleted, or its scopes changed;
 * - `member:<householdId>:<userId>`: a membership ended or its role changed.
 *
 * Notifications are delivered after the commit and in commit order with the household clock's
 * own (`hearth_household`), so an instance hears a revocation before any change committed after
 * it. The payload names whose rights changed, not what they became: a session reads its rights
 * afresh. The triggers carry the server-rows gate (migration 0019), since `memberships` is a
 * synced table that devices apply; on a device nobody listens anyway.
 */
const GATE = `current_setting('hearth.server_rows', true) is distinct from 'on'`

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function hearth_notify_key_rights() returns trigger language plpgsql as $$
    begin
      perform pg_notify('hearth_rights', 'key:' || old.id);
      return null;
    end $$`.execute(db)
  await sql`
    create function hearth_notify_member_rights() returns trigger language plpgsql as $$
    begin
      perform pg_notify('hearth_rights', 'member:' || old.household_id || ':' || old.user_id);
      return null;
    end $$`.execute(db)
  await sql
    .raw(`
    create trigger api_keys_rights_update after update on api_keys for each row
    when ((old.revoked_at is distinct from new.revoked_at or old.scopes is distinct from new.scopes
           or old.user_id is distinct from new.user_id) and ${GATE})
    execute function hearth_notify_key_rights()`)
    .execute(db)
  await sql
    .raw(`
    create trigger api_keys_rights_delete after delete on api_keys for each row when (${GATE})
    execute function hearth_notify_key_rights()`)
    .execute(db)
  await sql
    .raw(`
    create trigger memberships_rights_update after update on memberships for each row
    when ((old.role is distinct from new.role or old.user_id is distinct from new.user_id
           or old.household_id is distinct from new.household_id) and ${GATE})
    execute function hearth_notify_member_rights()`)
    .execute(db)
  await sql
    .raw(`
    create trigger memberships_rights_delete after delete on memberships for each row when (${GATE})
    execute function hearth_notify_member_rights()`)
    .execute(db)
}
