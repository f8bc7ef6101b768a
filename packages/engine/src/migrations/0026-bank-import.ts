import { type Kysely, sql } from 'kysely'
import { logChanges } from './change-log-trigger.ts'

/**
 * Bank text kept and matched. An alias may match a pattern (`match`: the spelling itself, or names
 * starting with it, containing it or matching an RE2 regex), so "STARBUCKS #1234" and
 * "STARBUCKS #5678" need one alias. Each transaction keeps the payee text the bank sent
 * (`imported_payee`), beside the payee it ends up with, for rules to test and people to read.
 * Each committed bank file is a batch (`import_batches`) listing what it created and matched, so
 * undo removes exactly that; `import_mappings` keeps an account's CSV mapping for its next file.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table payee_aliases add column match text not null default 'exact'
      check (match in ('exact', 'startsWith', 'contains', 'regex'))`.execute(db)
  await sql`
    alter table transactions add column imported_payee text
      check (imported_payee is null or char_length(imported_payee) <= 500)`.execute(db)
  await sql`
    create table import_batches (
      household_id text not null references households (id),
      id text not null,
      account_id text not null,
      format text not null,
      transaction_ids text[] not null,
      matched jsonb not null,
      duplicate_count integer not null,
      refused_count integer not null,
      file_ledger_balance_cents bigint,
      created_at timestamptz not null,
      undone_at timestamptz,
      primary key (household_id, id),
      constraint import_batches_account_fk foreign key (household_id, account_id)
        references accounts (household_id, id) deferrable
    )`.execute(db)
  await sql`create index import_batches_account_idx on import_batches (household_id, account_id, created_at)`.execute(
    db,
  )
  await logChanges(db, 'import_batches')
  await sql`
    create table import_mappings (
      household_id text not null references households (id),
      id text not null,
      mapping jsonb not null,
      updated_at timestamptz not null,
      primary key (household_id, id),
      constraint import_mappings_account_fk foreign key (household_id, id)
        references accounts (household_id, id) deferrable
    )`.execute(db)
  await logChanges(db, 'import_mappings')
}
