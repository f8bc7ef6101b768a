import { type Kysely, sql } from 'kysely'

/**
 * Invitations: an owner's offer of a role in a household and the scopes of the key it will mint,
 * redeemed once by whoever holds the code. Only the SHA-256 of the code is kept, as for API keys.
 * Server-only: a device never sees codes or who was invited.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table invitations (
      household_id text not null references households (id),
      id text not null,
      code_hash text not null unique,
      prefix text not null,
      role text not null check (role in ('owner', 'member')),
      scopes text[] not null,
      note text,
      created_by text not null references users (id),
      created_at timestamptz not null,
      expires_at timestamptz not null,
      redeemed_at timestamptz,
      redeemed_by text references users (id),
      revoked_at timestamptz,
      primary key (household_id, id)
    )`.execute(db)
}
