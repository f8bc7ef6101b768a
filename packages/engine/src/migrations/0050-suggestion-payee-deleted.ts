import { type Kysely, sql } from 'kysely'

/**
 * A payee removed outright changes the category model's inputs only when a categorized row names
 * it (migration 0048 replaced the household's generation at every payee deletion). A device's
 * rebase undoes its pending creates before it applies the server's rows, removing the new payee
 * each create made (no row names it by then: the create's row goes first), and then puts it back;
 * the insert already bumped only when a categorized row named the payee, so every acknowledged
 * add with a new payee's name made the next add train the model again (issue 44: a row added in
 * the app at 50,000 rows).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function hearth_suggestion_payee_deleted() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from transactions t
                 where t.household_id = old.household_id and t.payee_id = old.id and t.category_id is not null) then
        perform hearth_suggestion_bump(old.household_id);
      end if;
      return null;
    end;
    $$`.execute(db)
  await sql`drop trigger payees_suggestion_delete on payees`.execute(db)
  await sql`
    create trigger payees_suggestion_delete after delete on payees for each row
    when (strpos(coalesce(current_setting('hearth.suggestion_inputs', true), ''), ',' || old.household_id || ',') = 0)
    execute function hearth_suggestion_payee_deleted()`.execute(db)
  await sql`alter table payees enable always trigger payees_suggestion_delete`.execute(db)
}
