import { type Kysely, sql } from 'kysely'
import { logRowChanges } from './change-log-trigger.ts'

/**
 * Accounts, transactions, splits, tag and flag links, and exchange rates. Foreign keys are
 * DEFERRABLE so a replay that writes rows in another order can defer them to commit.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table accounts (
      household_id text not null references households (id),
      id text not null,
      name text not null check (char_length(name) between 1 and 200),
      type text not null check (type in ('cash', 'credit', 'loan', 'tracking')),
      subtype text check (char_length(subtype) <= 100),
      currency text not null check (currency ~ '^[A-Z]{3}$'),
      status text not null default 'open' check (status in ('open', 'closed')),
      group_name text not null check (char_length(group_name) between 1 and 200),
      position integer not null default 0,
      bank_fed boolean not null default false,
      balance_cents bigint not null default 0,
      cleared_balance_cents bigint not null default 0,
      closed_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz,
      primary key (household_id, id)
    )`.execute(db)

  await sql`
    create table transactions (
      household_id text not null,
      id text not null,
      account_id text not null,
      date date not null,
      amount_cents bigint not null,
      payee_id text,
      category_id text,
      memo text check (char_length(memo) <= 1000),
      status text not null check (status in ('pending', 'cleared', 'reconciled')),
      source text not null check (source in ('manual', 'imported', 'ai', 'recurring', 'split')),
      kind text not null default 'normal' check (kind in ('normal', 'opening_balance', 'adjustment')),
      imported_id text check (char_length(imported_id) between 1 and 200),
      transfer_group_id text,
      needs_review boolean not null default false,
      suggested_category_id text,
      suggestion_confidence double precision check (suggestion_confidence between 0 and 1),
      suggestion_reason text,
      possible_duplicate boolean not null default false,
      matched_transaction_id text,
      merged_into_id text,
      prematch_date date,
      prematch_status text check (prematch_status in ('pending', 'cleared', 'reconciled')),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz,
      primary key (household_id, id),
      foreign key (household_id, account_id) references accounts (household_id, id) deferrable,
      foreign key (household_id, payee_id) references payees (household_id, id) deferrable,
      foreign key (household_id, category_id) references categories (household_id, id) deferrable,
      foreign key (household_id, suggested_category_id) references categories (household_id, id) deferrable,
      foreign key (household_id, merged_into_id) references transactions (household_id, id) deferrable,
      foreign key (household_id, matched_transaction_id) references transactions (household_id, id) deferrable
    )`.execute(db)
  // Keyset paging, newest first, over the rows reads show.
  await sql`
    create index transactions_list_idx on transactions (household_id, date desc, id desc)
    where deleted_at is null and merged_into_id is null`.execute(db)
  await sql`
    create index transactions_account_date_idx on transactions (household_id, account_id, date, id)
    where deleted_at is null and merged_into_id is null`.execute(db)
  await sql`
    create unique index transactions_imported_id_unique on transactions (household_id, account_id, imported_id)
    where imported_id is not null and deleted_at is null`.execute(db)
  // Re-imports skip importedIds the account ever held, deleted rows included.
  await sql`
    create index transactions_imported_id_idx on transactions (household_id, account_id, imported_id)
    where imported_id is not null`.execute(db)
  // Pending rows are few; stale-pending counts and reconcile screens look for them.
  await sql`
    create index transactions_pending_idx on transactions (household_id, account_id, date)
    where status = 'pending' and deleted_at is null and merged_into_id is null`.execute(db)
  await sql`
    create index transactions_transfer_group_idx on transactions (household_id, transfer_group_id)
    where transfer_group_id is not null`.execute(db)
  // The self-references: unmatch finds the folded bank row by these, and a hard delete's
  // foreign-key check would otherwise scan every row of the household.
  await sql`
    create index transactions_merged_into_idx on transactions (household_id, merged_into_id)
    where merged_into_id is not null`.execute(db)
  await sql`
    create index transactions_matched_idx on transactions (household_id, matched_transaction_id)
    where matched_transaction_id is not null`.execute(db)
  await sql`create index transactions_payee_idx on transactions (household_id, payee_id)`.execute(db)
  await sql`create index transactions_category_idx on transactions (household_id, category_id)`.execute(db)

  await sql`
    create table transaction_splits (
      household_id text not null,
      id text not null,
      transaction_id text not null,
      position integer not null,
      amount_cents bigint not null,
      category_id text,
      payee_id text,
      memo text check (char_length(memo) <= 1000),
      primary key (household_id, id),
      unique (household_id, transaction_id, position) deferrable,
      foreign key (household_id, transaction_id) references transactions (household_id, id) deferrable,
      foreign key (household_id, category_id) references categories (household_id, id) deferrable,
      foreign key (household_id, payee_id) references payees (household_id, id) deferrable
    )`.execute(db)
  await sql`create index transaction_splits_category_idx on transaction_splits (household_id, category_id)`.execute(
    db,
  )

  for (const [table, target, column] of [
    ['transaction_tags', 'tags', 'tag_id'],
    ['transaction_flags', 'flags', 'flag_id'],
  ] as const) {
    await sql`
      create table ${sql.table(table)} (
        household_id text not null,
        id text not null,
        transaction_id text not null,
        ${sql.ref(column)} text not null,
        primary key (household_id, id),
        unique (household_id, transaction_id, ${sql.ref(column)}),
        foreign key (household_id, transaction_id) references transactions (household_id, id) deferrable,
        foreign key (household_id, ${sql.ref(column)}) references ${sql.table(target)} (household_id, id)
          on delete cascade deferrable
      )`.execute(db)
    await sql`create index ${sql.id(`${table}_${column}_idx`)} on ${sql.table(table)} (household_id, ${sql.ref(column)})`.execute(
      db,
    )
  }

  await sql`
    create table exchange_rates (
      household_id text not null references households (id),
      id text not null,
      from_currency text not null check (from_currency ~ '^[A-Z]{3}$'),
      to_currency text not null check (to_currency ~ '^[A-Z]{3}$'),
      rate numeric not null check (rate > 0),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (household_id, id),
      unique (household_id, from_currency, to_currency),
      check (from_currency <> to_currency)
    )`.execute(db)

  // The database holds the split invariant too: at commit, a row's splits sum to its amount.
  await sql`
    create function hearth_check_split_sum() returns trigger language plpgsql as $$
    declare
      h text;
      t text;
      parts integer;
      total bigint;
      parent bigint;
    begin
      if tg_table_name = 'transactions' then
        h := new.household_id; t := new.id;
      elsif tg_op = 'DELETE' then
        h := old.household_id; t := old.transaction_id;
      else
        h := new.household_id; t := new.transaction_id;
      end if;
      select count(*), coalesce(sum(amount_cents), 0)::bigint into parts, total
        from transaction_splits where household_id = h and transaction_id = t;
      if parts = 0 then
        return null;
      end if;
      select amount_cents into parent from transactions where household_id = h and id = t;
      if parent is distinct from total then
        raise exception 'splits of transaction % sum to %, not %', t, total, parent using errcode = '23514';
      end if;
      return null;
    end;
    $$`.execute(db)
  await sql`
    create constraint trigger transaction_splits_sum_check
    after insert or update or delete on transaction_splits deferrable initially deferred
    for each row execute function hearth_check_split_sum()`.execute(db)
  await sql`
    create constraint trigger transactions_split_sum_check
    after update of amount_cents on transactions deferrable initially deferred
    for each row when (old.amount_cents is distinct from new.amount_cents)
    execute function hearth_check_split_sum()`.execute(db)

  for (const table of [
    'accounts',
    'transactions',
    'transaction_splits',
    'transaction_tags',
    'transaction_flags',
    'exchange_rates',
  ]) {
    await logRowChanges(db, table)
  }
}
