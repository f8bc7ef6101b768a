import { type Kysely, sql } from 'kysely'

/**
 * Bank connections (issue 42). Server-only, as webhook subscriptions are: a connection holds the
 * provider's access credential sealed under the server's secret key, which no device may hold.
 * A connection's remote accounts are its links; each is linked to at most one Hearth account,
 * and a Hearth account to at most one remote account. The transactions a sync brings are
 * ordinary imported rows in import batches, so they sync to devices as every row does.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table bank_connections (
      household_id text not null references households (id),
      id text not null,
      provider text not null check (provider in ('simplefin')),
      setup_token_hash text not null,
      access_sealed text not null,
      institutions text[] not null default '{}',
      status text not null default 'active' check (status in ('active', 'needsAttention')),
      attention_reason text,
      synced_through timestamptz,
      sync_lease_until timestamptz,
      last_sync jsonb,
      last_synced_at timestamptz,
      created_by text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (household_id, id)
    )`.execute(db)
  await sql`create unique index bank_connections_token_idx on bank_connections (setup_token_hash)`.execute(db)
  await sql`create index bank_connections_due_idx on bank_connections (last_synced_at) where status = 'active'`.execute(
    db,
  )
  await sql`
    create table bank_links (
      household_id text not null,
      connection_id text not null,
      remote_id text not null check (char_length(remote_id) between 1 and 200),
      name text not null,
      institution text,
      currency text not null,
      account_id text,
      balance_cents bigint,
      balance_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (household_id, connection_id, remote_id),
      foreign key (household_id, connection_id) references bank_connections (household_id, id)
        on delete cascade
    )`.execute(db)
  await sql`create unique index bank_links_account_idx on bank_links (household_id, account_id)
    where account_id is not null`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table bank_links`.execute(db)
  await sql`drop table bank_connections`.execute(db)
}
