import { type Kysely, sql } from 'kysely'

/**
 * Bank text kept and matched. An alias may match a pattern (`match`: the spelling itself, or names
 * starting with it, containing it or matching an RE2 regex), so "STARBUCKS #1234" and
 * "STARBUCKS #5678" need one alias. Each transaction keeps the payee text the bank sent
 * (`imported_payee`), beside the payee it ends up with, for rules to test and people to read.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table payee_aliases add column match text not null default 'exact'
      check (match in ('exact', 'startsWith', 'contains', 'regex'))`.execute(db)
  await sql`
    alter table transactions add column imported_payee text
      check (imported_payee is null or char_length(imported_payee) <= 500)`.execute(db)
}
