import { type Kysely, sql } from 'kysely'

/**
 * Second factors and passkeys (issue 37). Every table stays on the server (no change-log trigger):
 * no device ever holds a secret, a hash or a public key of another person.
 *
 * - `totp_factors`: at most one per user. The RFC 6238 secret is sealed as webhook secrets are
 *   (AES-256-GCM under `HEARTH_WEBHOOK_SECRET_KEY`); it counts only once `confirmed_at` is set (a
 *   first valid code). `last_step` is the 30-second step of the last code accepted: a code of that
 *   step or an earlier one is refused, so a code works once.
 * - `recovery_codes`: ten per confirmed factor, as their SHA-256 only; `used_at` once used.
 * - `passkeys`: WebAuthn credentials, several per user, each named; the credential's public key
 *   (COSE, base64url) and its signature counter, which only moves forward.
 * - `webauthn_challenges`: each challenge handed out for a registration or a sign-in, used once
 *   (deleted when taken) and refused after `expires_at`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table totp_factors (
      user_id text primary key references users (id) on delete cascade,
      secret_sealed text not null,
      created_at timestamptz not null,
      confirmed_at timestamptz,
      last_step bigint
    )`.execute(db)
  await sql`
    create table recovery_codes (
      id text primary key,
      user_id text not null references users (id) on delete cascade,
      code_hash text not null unique,
      created_at timestamptz not null,
      used_at timestamptz
    )`.execute(db)
  await sql`create index recovery_codes_user on recovery_codes (user_id)`.execute(db)
  await sql`
    create table passkeys (
      id text primary key,
      user_id text not null references users (id) on delete cascade,
      credential_id text not null unique,
      public_key text not null,
      counter bigint not null check (counter >= 0),
      transports text not null default '',
      name text not null,
      created_at timestamptz not null,
      last_used_at timestamptz
    )`.execute(db)
  await sql`create index passkeys_user on passkeys (user_id)`.execute(db)
  await sql`
    create table webauthn_challenges (
      challenge text primary key,
      purpose text not null check (purpose in ('register', 'sign_in')),
      user_id text references users (id) on delete cascade,
      expires_at timestamptz not null
    )`.execute(db)
  await sql`create index webauthn_challenges_expiry on webauthn_challenges (expires_at)`.execute(db)
}
