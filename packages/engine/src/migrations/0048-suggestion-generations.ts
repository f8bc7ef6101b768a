import { type Kysely, sql } from 'kysely'

/**
 * A key for the category model each store keeps trained (`payees/suggestion-step.ts`), so that
 * adding a row does not train it again (issue 44). `suggestion_generations` holds one random id
 * per household, replaced whenever anything the model learns from may have changed:
 *
 * - a transaction row that is or was categorized, inserted, deleted, or updated in a column the
 *   training reads or filters on (category, payee, memo, amount, account, date, kind, deleted,
 *   merged);
 * - a category inserted, deleted, or soft-deleted or restored (the training keeps live ones);
 * - a payee deleted or renamed (the training reads payees' normalized names), or inserted while
 *   a categorized row already names it (a rebase putting back a payee its undo removed); a new
 *   payee no row names, which every create with a new payee's name inserts, changes nothing;
 * - `truncate` of any of these, for every household.
 *
 * The id is random, never a counter, so an id a rolled-back transaction wrote is never seen
 * again, and two stores (a device and the server, or two devices in one process) never share
 * one. A transaction replaces its household's id once, at its first such write, and notes the
 * household in its own setting `hearth.suggestion_inputs` (`,<household id>,` each); the WHEN
 * clauses skip every later row of that household in that transaction, so a snapshot's load or a
 * bulk import calls the function once. The model step neither uses nor keeps a model while its
 * transaction has changed the household's inputs (the setting names it), so only an id that
 * committed data carries is ever a key. The table is each store's own, never synced nor backed
 * up, and its triggers fire in replica mode too (`enable always`): a device's id changes
 * however its rows change (a local mutation, the server's rows, a rebase's undo).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table suggestion_generations (
      household_id text primary key,
      generation uuid not null
    )`.execute(db)

  await sql`
    create function hearth_suggestion_bump(p_household text) returns void language sql as $$
      insert into suggestion_generations (household_id, generation) values (p_household, gen_random_uuid())
      on conflict (household_id) do update set generation = excluded.generation;
      select set_config('hearth.suggestion_inputs',
        coalesce(nullif(current_setting('hearth.suggestion_inputs', true), ''), ',') || p_household || ',', true);
    $$`.execute(db)

  await sql`
    create function hearth_suggestion_inputs_changed() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        perform hearth_suggestion_bump(old.household_id);
      else
        perform hearth_suggestion_bump(new.household_id);
      end if;
      return null;
    end;
    $$`.execute(db)

  await sql`
    create function hearth_suggestion_payee_inserted() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from transactions t
                 where t.household_id = new.household_id and t.payee_id = new.id and t.category_id is not null) then
        perform hearth_suggestion_bump(new.household_id);
      end if;
      return null;
    end;
    $$`.execute(db)

  await sql`
    create function hearth_suggestion_inputs_truncated() returns trigger language plpgsql as $$
    begin
      update suggestion_generations set generation = gen_random_uuid();
      return null;
    end;
    $$`.execute(db)

  /** Not yet replaced in this transaction for the row's household. */
  const fresh = (row: 'new' | 'old') =>
    `strpos(coalesce(current_setting('hearth.suggestion_inputs', true), ''), ',' || ${row}.household_id || ',') = 0`
  const trained = [
    'category_id',
    'payee_id',
    'memo',
    'amount_cents',
    'account_id',
    'date',
    'kind',
    'deleted_at',
  ]
  const triggers: [table: string, name: string, event: string, when: string, fn?: string][] = [
    ['transactions', 'insert', 'insert', `new.category_id is not null and ${fresh('new')}`],
    [
      'transactions',
      'update',
      'update',
      `(old.category_id is not null or new.category_id is not null)
        and (${trained.map((c) => `old.${c}`).join(', ')}, old.merged_into_id)
          is distinct from (${trained.map((c) => `new.${c}`).join(', ')}, new.merged_into_id)
        and ${fresh('new')}`,
    ],
    ['transactions', 'delete', 'delete', `old.category_id is not null and ${fresh('old')}`],
    ['categories', 'insert', 'insert', fresh('new')],
    ['categories', 'update', 'update', `old.deleted_at is distinct from new.deleted_at and ${fresh('new')}`],
    ['categories', 'delete', 'delete', fresh('old')],
    [
      'payees',
      'update',
      'update',
      `old.normalized_name is distinct from new.normalized_name and ${fresh('new')}`,
    ],
    ['payees', 'insert', 'insert', fresh('new'), 'hearth_suggestion_payee_inserted'],
    ['payees', 'delete', 'delete', fresh('old')],
  ]
  for (const [table, name, event, when, fn = 'hearth_suggestion_inputs_changed'] of triggers) {
    const trigger = `${table}_suggestion_${name}`
    await sql
      .raw(
        `create trigger ${trigger} after ${event} on ${table} for each row when (${when})
         execute function ${fn}()`,
      )
      .execute(db)
    await sql.raw(`alter table ${table} enable always trigger ${trigger}`).execute(db)
  }
  for (const table of ['transactions', 'categories', 'payees']) {
    const trigger = `${table}_suggestion_truncate`
    await sql
      .raw(
        `create trigger ${trigger} after truncate on ${table} for each statement
         execute function hearth_suggestion_inputs_truncated()`,
      )
      .execute(db)
    await sql.raw(`alter table ${table} enable always trigger ${trigger}`).execute(db)
  }

  // Households that already hold rows.
  await sql`
    insert into suggestion_generations (household_id, generation)
    select id, gen_random_uuid() from households`.execute(db)
}
