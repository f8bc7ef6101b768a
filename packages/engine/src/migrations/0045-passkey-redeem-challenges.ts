import { type Kysely, sql } from 'kysely'

/**
 * A passkey made with a setup link or an invitation (issue 37): the WebAuthn challenge is handed
 * out before the person signs in, and for an invitation before the person exists.
 *
 * - `webauthn_challenges.purpose` gains `redeem`: a registration answered at the redeem of a link
 *   or an invitation, taken in the redeem's own transaction.
 * - `code_hash`: the SHA-256 of the link's or invitation's code it was handed out for; only that
 *   code's redeem may take it.
 * - `new_user_id`: for an invitation, the id chosen ahead for the person it will make (no user
 *   exists yet, so `user_id` stays null). For a link, `user_id` is the link's user, as for any
 *   registration.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table webauthn_challenges drop constraint webauthn_challenges_purpose_check`.execute(db)
  await sql`
    alter table webauthn_challenges add constraint webauthn_challenges_purpose_check
      check (purpose in ('register', 'sign_in', 'redeem'))`.execute(db)
  await sql`alter table webauthn_challenges add column code_hash text`.execute(db)
  await sql`alter table webauthn_challenges add column new_user_id text`.execute(db)
  // A redeem's challenge names its code and exactly one of the two users; no other has either.
  await sql`
    alter table webauthn_challenges add constraint webauthn_challenges_redeem_check check (
      (purpose = 'redeem' and code_hash is not null and (user_id is null) <> (new_user_id is null))
      or (purpose <> 'redeem' and code_hash is null and new_user_id is null))`.execute(db)
}
