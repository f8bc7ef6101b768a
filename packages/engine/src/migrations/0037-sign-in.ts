import { type Kysely, sql } from 'kysely'

/**
 * People sign in (issue 37): passwords, one-time sign-in links (setup and reset), and sessions.
 * Every table here stays on the server (no change-log trigger), so no device ever holds a hash.
 *
 * - `users`: an email is unique per server compared case-insensitively (`Ada@x.org` is `ada@x.org`).
 * - `passwords`: at most one per user, an scrypt hash in the PHC-like form `scrypt$N$r$p$salt$hash`.
 * - `sign_in_links`: a setup or reset link's code, stored as its SHA-256 only; single use (`used_at`)
 *   and with an end (`expires_at`).
 * - `api_keys` gains `kind`: a `session` is a credential of the web app, held in a cookie, with an
 *   absolute end (`expires_at`) and an idle end (`idle_seconds` after its last use), and the browser
 *   and address it signed in from. Being a key row, a session is revoked, narrowed and announced on
 *   `hearth_rights` exactly as a key is (migration 0020), so REST, `/sync`, note rooms and the
 *   assistant drop it within a second the same way.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create unique index users_email_lower_key on users (lower(email)) where email is not null`.execute(
    db,
  )
  await sql`
    create table passwords (
      user_id text primary key references users (id) on delete cascade,
      hash text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db)
  await sql`
    create table sign_in_links (
      id text primary key,
      user_id text not null references users (id) on delete cascade,
      purpose text not null check (purpose in ('setup', 'reset')),
      code_hash text not null unique,
      created_by text references users (id) on delete set null,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      used_at timestamptz
    )`.execute(db)
  await sql`create index sign_in_links_user on sign_in_links (user_id)`.execute(db)
  await sql`
    alter table api_keys
      add column kind text not null default 'key' check (kind in ('key', 'session')),
      add column expires_at timestamptz,
      add column idle_seconds integer check (idle_seconds > 0),
      add column user_agent text,
      add column client_address text`.execute(db)
  await sql`create index api_keys_user_kind on api_keys (user_id, kind)`.execute(db)
}
