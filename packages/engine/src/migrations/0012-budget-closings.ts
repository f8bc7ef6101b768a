import { type Kysely, sql } from 'kysely'
import {
  attachStatementTriggers,
  byStatementOp,
  EVERY_WRITE,
  type StatementOp,
} from './statement-triggers.ts'

/**
 * Kept month closings: what every category carries out of a month, and Ready to Assign and the
 * cash overspending that month hands to the next. A month snapshot starts from the latest
 * closing before its month and rolls forward only the months after it, instead of the whole
 * history. A closing is derived data, written by the reader that computed it (each store keeps
 * its own; it never syncs), and forgotten, from the month a change reaches onwards, by triggers
 * on everything it is computed from. The triggers fire in replica mode too (`enable always`), so
 * a device forgets its closings when the server's rows arrive.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table budget_closings (
      household_id text not null,
      month text not null,
      state text not null,
      primary key (household_id, month)
    )`.execute(db)

  // Forgets each household's closings from the earliest month a statement's rows reach.
  const forgetFrom = (months: string) => `
      delete from budget_closings c
      using (select household_id, min(month) as month from (${months}) m group by household_id) d
      where c.household_id = d.household_id and c.month >= d.month`
  // Forgets every closing of the households a statement's rows belong to.
  const forgetAll = (households: string) => `
      delete from budget_closings where household_id in (${households})`

  // Kept sums and assignments name their month.
  const months = (rows: string) => `select household_id, month from ${rows}`
  await sql
    .raw(`
    create function hearth_budget_closings_by_month() returns trigger language plpgsql as $$
    ${byStatementOp(
      forgetFrom(months('new_rows')),
      forgetFrom(`${months('old_rows')} union all ${months('new_rows')}`),
      forgetFrom(months('old_rows')),
    )}
    $$`)
    .execute(db)

  // Transfer legs are read from the ledger, not the kept sums. Whether a leg counts depends on
  // its group's other leg too, so a change to a leg reaches back to the earliest leg of its group.
  const legMonths = (legs: string) => `
      with legs as (${legs})
      select household_id, to_char(date, 'YYYY-MM') as month from legs
      union all
      select t.household_id, to_char(t.date, 'YYYY-MM')
      from transactions t join legs l on t.household_id = l.household_id and t.transfer_group_id = l.transfer_group_id`
  const legs = (rows: string) =>
    `select household_id, transfer_group_id, date from ${rows} where transfer_group_id is not null`
  await sql
    .raw(`
    create function hearth_budget_closings_transfers() returns trigger language plpgsql as $$
    ${byStatementOp(
      forgetFrom(legMonths(legs('new_rows'))),
      forgetFrom(legMonths(`${legs('old_rows')} union all ${legs('new_rows')}`)),
      forgetFrom(legMonths(legs('old_rows'))),
    )}
    $$`)
    .execute(db)
  // A transfer leg's splits are read from the ledger too.
  const splitLegs = (rows: string) => `
      select t.household_id, t.transfer_group_id, t.date from ${rows} s
      join transactions t on t.household_id = s.household_id and t.id = s.transaction_id
      where t.transfer_group_id is not null`
  await sql
    .raw(`
    create function hearth_budget_closings_transfer_splits() returns trigger language plpgsql as $$
    ${byStatementOp(
      forgetFrom(legMonths(splitLegs('new_rows'))),
      forgetFrom(legMonths(`${splitLegs('old_rows')} union all ${splitLegs('new_rows')}`)),
      forgetFrom(legMonths(splitLegs('old_rows'))),
    )}
    $$`)
    .execute(db)

  // What every month is computed with: the categories' kinds and carry setting, the groups'
  // income mark, which accounts count and the base currency. Names, order, goals and balances
  // change nothing a closing holds.
  const changed = (columns: string[], key = 'id', household = 'household_id') => `
      select o.${household} from old_rows o join new_rows n on n.${household} = o.${household} and n.${key} = o.${key}
      where ${columns.map((c) => `o.${c} is distinct from n.${c}`).join(' or ')}`
  const households = (rows: string, household = 'household_id') => `select ${household} from ${rows}`
  const catalog: [table: string, fn: string, columns: string[], insertForgets: boolean][] = [
    [
      'categories',
      'hearth_budget_closings_categories',
      ['group_id', 'payment_account_id', 'carry_overspending'],
      true,
    ],
    ['category_groups', 'hearth_budget_closings_category_groups', ['is_income'], false],
    ['accounts', 'hearth_budget_closings_accounts', ['type', 'currency', 'deleted_at'], true],
  ]
  for (const [, fn, columns, insertForgets] of catalog) {
    await sql
      .raw(`
      create function ${fn}() returns trigger language plpgsql as $$
      ${byStatementOp(
        insertForgets ? forgetAll(households('new_rows')) : 'null',
        forgetAll(changed(columns)),
        forgetAll(households('old_rows')),
      )}
      $$`)
      .execute(db)
  }
  await sql
    .raw(`
    create function hearth_budget_closings_households() returns trigger language plpgsql as $$
    begin
      ${forgetAll(changed(['base_currency'], 'id', 'id'))};
      return null;
    end;
    $$`)
    .execute(db)

  const attach = (table: string, fn: string, ops: readonly StatementOp[]) =>
    attachStatementTriggers(db, table, 'budget_closings', fn, ops)
  await attach('budget_activity', 'hearth_budget_closings_by_month', EVERY_WRITE)
  await attach('budget_cells', 'hearth_budget_closings_by_month', EVERY_WRITE)
  await attach('transactions', 'hearth_budget_closings_transfers', EVERY_WRITE)
  await attach('transaction_splits', 'hearth_budget_closings_transfer_splits', EVERY_WRITE)
  for (const [table, fn] of catalog) await attach(table, fn, EVERY_WRITE)
  await attach('households', 'hearth_budget_closings_households', ['update'])
}
