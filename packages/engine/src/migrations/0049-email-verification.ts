import { type Kysely, sql } from 'kysely'

/**
 * A person's email is verified by a one-time link mailed to it (issue 37), when the server sends mail.
 *
 * - `users.email_verified_at`: when the person followed a link mailed to their current email; null
 *   until then, and again whenever the email changes. Emails from before this migration start
 *   unverified.
 * - `email_verifications`: a mailed link's code, stored as its SHA-256 only, for the email it was
 *   sent to; single use (`used_at`) and with an end (`expires_at`). Server-only, as the other
 *   sign-in tables (no change-log trigger).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table users add column email_verified_at timestamptz`.execute(db)
  await sql`
    create table email_verifications (
      id text primary key,
      user_id text not null references users (id) on delete cascade,
      email text not null,
      code_hash text not null unique,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      used_at timestamptz
    )`.execute(db)
  await sql`create index email_verifications_user on email_verifications (user_id, created_at)`.execute(db)
}
