import { type Kysely, sql } from 'kysely'
import { logRowChanges } from './change-log-trigger.ts'

const monthCheck = sql`month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'`

/**
 * Envelope budgeting. `budget_cells` holds what a category is assigned in a month; its id is
 * `<YYYY-MM>:<category id>`, computed the same way on every device, so two devices assigning
 * one cell offline meet on one row (sync keys rows by `(household_id, id)`). `budget_history`
 * records every assign and both sides of every move. Categories learn whether they carry cash
 * overspending forward, and which credit account a payment category belongs to.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table categories
      add column carry_overspending boolean not null default false,
      add column payment_account_id text`.execute(db)
  await sql`
    create unique index categories_payment_account_unique on categories (household_id, payment_account_id)
    where payment_account_id is not null`.execute(db)

  await sql`
    create table budget_cells (
      household_id text not null,
      id text not null,
      month text not null check (${monthCheck}),
      category_id text not null,
      assigned_cents bigint not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (household_id, id),
      check (id = month || ':' || category_id),
      foreign key (household_id, category_id) references categories (household_id, id) deferrable
    )`.execute(db)
  await sql`create index budget_cells_month_idx on budget_cells (household_id, month)`.execute(db)
  await sql`create index budget_cells_category_idx on budget_cells (household_id, category_id)`.execute(db)

  await sql`
    create table budget_history (
      household_id text not null,
      id text not null,
      month text not null check (${monthCheck}),
      category_id text not null,
      kind text not null check (kind in ('assign', 'move', 'copy', 'reset', 'auto_assign')),
      previous_cents bigint not null,
      assigned_cents bigint not null,
      delta_cents bigint not null,
      counterpart_category_id text,
      user_id text,
      created_at timestamptz not null,
      primary key (household_id, id),
      foreign key (household_id, category_id) references categories (household_id, id) deferrable
    )`.execute(db)
  await sql`
    create index budget_history_cell_idx on budget_history (household_id, category_id, month, created_at desc, id desc)`.execute(
    db,
  )

  // Which categories are overrun in a month: budget.overrun is emitted once per category and
  // month, and again only after the category recovered (its row is then deleted).
  await sql`
    create table budget_overruns (
      household_id text not null,
      id text not null,
      month text not null check (${monthCheck}),
      category_id text not null,
      created_at timestamptz not null,
      primary key (household_id, id)
    )`.execute(db)

  // The month snapshot sums a household's rows by category and month.
  await sql`
    create index transactions_budget_idx on transactions (household_id, account_id, date)
    include (amount_cents, category_id, transfer_group_id)
    where deleted_at is null and merged_into_id is null`.execute(db)

  for (const table of ['budget_cells', 'budget_history']) await logRowChanges(db, table)
}
