import { type Kysely, sql } from 'kysely'

/** The writes a statement trigger can follow. */
export type StatementOp = 'insert' | 'update' | 'delete'

/** Every write: insert, update and delete. */
export const EVERY_WRITE: readonly StatementOp[] = ['insert', 'update', 'delete']

/**
 * The PL/pgSQL body of a statement trigger that runs `insert`, `update` or `remove` (each one
 * statement over the transition tables `new_rows` and `old_rows` its write has) by the write that
 * fired it.
 */
export function byStatementOp(insert: string, update: string, remove: string): string {
  return `
    begin
      if tg_op = 'INSERT' then
        ${insert};
      elsif tg_op = 'UPDATE' then
        ${update};
      else
        ${remove};
      end if;
      return null;
    end;`
}

/**
 * Attaches `fn` to `table` as one statement trigger per write of `ops`, named
 * `${table}_${purpose}_${op}`, with the transition tables that write has (`new_rows`, `old_rows`),
 * and `enable always`: it fires in replica mode too, so what a store derives from its rows follows
 * the server's rows as a device applies them.
 */
export async function attachStatementTriggers(
  db: Kysely<unknown>,
  table: string,
  purpose: string,
  fn: string,
  ops: readonly StatementOp[],
): Promise<void> {
  for (const op of ops) {
    const name = `${table}_${purpose}_${op}`
    const transition =
      op === 'insert'
        ? 'referencing new table as new_rows'
        : op === 'update'
          ? 'referencing old table as old_rows new table as new_rows'
          : 'referencing old table as old_rows'
    await sql
      .raw(
        `create trigger ${name} after ${op} on ${table} ${transition} for each statement execute function ${fn}()`,
      )
      .execute(db)
    await sql.raw(`alter table ${table} enable always trigger ${name}`).execute(db)
  }
}
