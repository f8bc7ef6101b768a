import { type Kysely, sql } from 'kysely'

/**
 * Device credentials (issue 37): an SDK device signs in for a short-lived access token and a
 * refresh token bound to it.
 *
 * - `api_keys.kind` gains `device`: the row is the device, its `key_hash` the current access
 *   token's SHA-256 (replaced at every refresh), `expires_at` when that access token ends, and
 *   `idle_seconds` how long the device may go unused before it can no longer refresh. Being a key
 *   row, a device is listed, revoked and announced on `hearth_rights` as sessions and keys are
 *   (migration 0020), so REST, `/sync`, note rooms and the assistant drop it within a second.
 * - `device_refresh_tokens`: every refresh token a device was ever given, as its SHA-256 only.
 *   A refresh uses its token up (`used_at`) and issues the next one; a used token presented again
 *   means two holders of one device's secret, and revokes the device (reuse detection).
 *   Server-only (no change-log trigger): no device ever holds a hash.
 * - `oidc_identities`: a person's identity at an OpenID Connect provider (its issuer and subject),
 *   linked by verified email at first sign-in or from the person's security settings; one
 *   identity signs in one person. Server-only.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table api_keys drop constraint api_keys_kind_check`.execute(db)
  await sql`
    alter table api_keys add constraint api_keys_kind_check
      check (kind in ('key', 'session', 'device'))`.execute(db)
  await sql`
    create table device_refresh_tokens (
      token_hash text primary key,
      key_id text not null references api_keys (id) on delete cascade,
      created_at timestamptz not null,
      used_at timestamptz
    )`.execute(db)
  await sql`create index device_refresh_tokens_key on device_refresh_tokens (key_id)`.execute(db)
  await sql`
    create table oidc_identities (
      issuer text not null,
      subject text not null,
      user_id text not null references users (id) on delete cascade,
      email text,
      created_at timestamptz not null,
      last_used_at timestamptz,
      primary key (issuer, subject)
    )`.execute(db)
  await sql`create index oidc_identities_user on oidc_identities (user_id)`.execute(db)
}
