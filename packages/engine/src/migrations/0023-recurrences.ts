import { type Kysely, sql } from 'kysely'
import { logChanges } from './change-log-trigger.ts'

/**
 * Recurrences (schedules that book a transaction on each occurrence), the suggestions a household
 * dismissed, the price changes already announced, and `transactions.external_id`: the key a booked
 * occurrence carries (`recurrence:<id>:<date>`), unique per household, so no restart, second
 * server, device or retry books one occurrence twice.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table transactions add column external_id text`.execute(db)
  // The day of the month a credit card's payment is due; upcoming lists it.
  await sql`alter table accounts add column payment_due_day integer check (payment_due_day between 1 and 31)`.execute(
    db,
  )
  await sql`create unique index transactions_external_id_idx on transactions (household_id, external_id)
    where external_id is not null`.execute(db)

  await sql`
    create table recurrences (
      household_id text not null references households (id),
      id text not null,
      name text not null check (char_length(name) between 1 and 200),
      account_id text not null,
      amount_cents bigint not null,
      currency text not null,
      frequency text not null check (frequency in ('daily', 'weekly', 'biweekly', 'monthly',
        'monthly_last_day', 'monthly_nth_weekday', 'yearly')),
      interval integer not null default 1 check (interval between 1 and 999),
      day_of_month integer check (day_of_month between 1 and 31),
      weekday integer check (weekday between 0 and 6),
      week_of_month integer check (week_of_month in (-1, 1, 2, 3, 4, 5)),
      start_date date not null,
      end_date date,
      occurrence_count integer check (occurrence_count > 0),
      payee_id text,
      category_id text,
      memo text,
      status text not null default 'active' check (status in ('active', 'paused')),
      origin text not null default 'manual' check (origin in ('manual', 'detected')),
      run_from date not null,
      next_run_date date,
      last_run_date date,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      deleted_at timestamptz,
      primary key (household_id, id),
      constraint recurrences_account_fk foreign key (household_id, account_id)
        references accounts (household_id, id) deferrable
    )`.execute(db)
  await sql`create index recurrences_due_idx on recurrences (household_id, next_run_date)
    where deleted_at is null and status = 'active'`.execute(db)
  await logChanges(db, 'recurrences')

  await sql`
    create table recurrence_dismissals (
      household_id text not null references households (id),
      id text not null,
      created_at timestamptz not null,
      primary key (household_id, id)
    )`.execute(db)
  await logChanges(db, 'recurrence_dismissals')

  // Which price changes recurrence.priceChanged already announced; each replica keeps its own.
  await sql`
    create table recurrence_announcements (
      household_id text not null references households (id),
      id text not null,
      created_at timestamptz not null,
      primary key (household_id, id)
    )`.execute(db)
  // Forecasts sum a household's spending by day over the months they read; this index answers
  // that from the index alone, without visiting each row.
  await sql`create index transactions_spending_idx on transactions (household_id, date)
    include (account_id, category_id, amount_cents, source)
    where deleted_at is null and merged_into_id is null and kind = 'normal' and transfer_group_id is null`.execute(
    db,
  )
}
