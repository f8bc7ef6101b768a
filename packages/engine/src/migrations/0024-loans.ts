import { type Kysely, sql } from 'kysely'
import { logChanges } from './change-log-trigger.ts'

/**
 * A loan account's terms with their dated history (loans/). One row per effective date, so two
 * devices setting the terms of one day meet on one row; the rate is held exactly as an integer
 * of 0.0001 percent units (6.5% is 65000), never as a float.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table loan_terms (
      household_id text not null references households (id),
      id text not null,
      account_id text not null,
      effective_date date not null,
      principal_cents bigint not null check (principal_cents > 0),
      annual_rate_units integer not null check (annual_rate_units between 0 and 1000000),
      payment_cents bigint not null check (payment_cents > 0),
      escrow_cents bigint not null default 0 check (escrow_cents >= 0),
      first_payment_date date not null,
      term_months integer check (term_months between 1 and 1200),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (household_id, id),
      unique (household_id, account_id, effective_date) deferrable,
      foreign key (household_id, account_id) references accounts (household_id, id) deferrable
    )`.execute(db)
  await logChanges(db, 'loan_terms')
}
