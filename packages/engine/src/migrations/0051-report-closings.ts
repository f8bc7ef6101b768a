import { type Kysely, sql } from 'kysely'
import {
  attachStatementTriggers,
  byStatementOp,
  EVERY_WRITE,
  type StatementOp,
} from './statement-triggers.ts'

/**
 * Kept report months: where the net-worth, cash-flow and age-of-money reports stand at the end of
 * a month that is over (each account's balance; the month's money in and out per currency; the
 * age of money's undrained buckets and last outflows), so a report reads only the rows after the
 * latest month kept instead of the whole history (`reports/closings.ts`). Like `budget_closings` it is a cache each store computes from its own
 * rows and never syncs, written by the reader that computed it and forgotten, from the month a
 * change reaches onwards, by triggers that fire in replica mode too (`enable always`).
 *
 * What the three reports read: every live row's date, amount, account and kind (and whether it is
 * merged away or a transfer leg, whose group's other leg decides whether it counts as cash flow),
 * a split row's parts, the accounts' type, currency and deletion, and the household's base
 * currency. A change to a row's category, payee, notes or status forgets nothing. Each trigger first asks whether the household
 * keeps anything, so a household that never opens its reports (and a replica's first snapshot)
 * pays one index probe per statement.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table report_closings (
      household_id text not null,
      report text not null,
      month text not null,
      state text not null,
      primary key (household_id, report, month)
    )`.execute(db)

  // The months a statement's rows reach, and for a transfer leg its group's other legs' months.
  const reached = (rows: string) => `
      with touched as (${rows})
      select household_id, to_char(date, 'YYYY-MM') as month from touched
      union all
      select t.household_id, to_char(t.date, 'YYYY-MM')
      from transactions t join touched l on t.household_id = l.household_id
        and t.transfer_group_id = l.transfer_group_id
      where l.transfer_group_id is not null`
  // `households` names the statement's households from one transition table, a cheap probe: only
  // when one of them keeps something are the months reached worked out.
  const forgetFrom = (rows: string, households: string) => `
      if exists (select 1 from report_closings where household_id in (${households})) then
        delete from report_closings c
        using (select household_id, min(month) as month from (${reached(rows)}) m group by household_id) d
        where c.household_id = d.household_id and c.month >= d.month;
      end if`
  const columns = 'household_id, transfer_group_id, date'
  // An update reaches the months of the rows whose dated amount, account, kind or standing changed,
  // before and after. Worked out with EXCEPT (hashed), not a join of the transition tables, which
  // have no statistics and would be planned as a nested loop: a bulk update of 5,000 rows paid
  // 25 million comparisons.
  const moved = [
    'id',
    'date',
    'amount_cents',
    'account_id',
    'kind',
    'deleted_at',
    'merged_into_id',
    'transfer_group_id',
  ].join(', ')
  const changedRows = `
      select ${columns} from (
        (select household_id, ${moved} from old_rows except select household_id, ${moved} from new_rows)
        union all
        (select household_id, ${moved} from new_rows except select household_id, ${moved} from old_rows)
      ) changed`
  await sql
    .raw(`
    create function hearth_report_closings_transactions() returns trigger language plpgsql as $$
    ${byStatementOp(
      forgetFrom(`select ${columns} from new_rows`, 'select household_id from new_rows'),
      forgetFrom(changedRows, 'select household_id from old_rows'),
      forgetFrom(`select ${columns} from old_rows`, 'select household_id from old_rows'),
    )}
    $$`)
    .execute(db)

  // A split row counts by its parts in cash flow: a change to a part reaches its row's month.
  const parents = (rows: string) => `
      select t.household_id, t.transfer_group_id, t.date from ${rows} s
      join transactions t on t.household_id = s.household_id and t.id = s.transaction_id`
  await sql
    .raw(`
    create function hearth_report_closings_splits() returns trigger language plpgsql as $$
    ${byStatementOp(
      forgetFrom(parents('new_rows'), 'select household_id from new_rows'),
      forgetFrom(
        `${parents('old_rows')} union all ${parents('new_rows')}`,
        'select household_id from old_rows',
      ),
      forgetFrom(parents('old_rows'), 'select household_id from old_rows'),
    )}
    $$`)
    .execute(db)

  // Which accounts count and in what currency, and the base currency, reach every month.
  await sql
    .raw(`
    create function hearth_report_closings_accounts() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' then
        delete from report_closings where household_id in (
          select o.household_id from old_rows o join new_rows n on n.household_id = o.household_id and n.id = o.id
          where o.type is distinct from n.type or o.currency is distinct from n.currency
            or o.deleted_at is distinct from n.deleted_at);
      else
        delete from report_closings where household_id in (select household_id from old_rows);
      end if;
      return null;
    end;
    $$`)
    .execute(db)
  await sql
    .raw(`
    create function hearth_report_closings_households() returns trigger language plpgsql as $$
    begin
      delete from report_closings where household_id in (
        select o.id from old_rows o join new_rows n on n.id = o.id
        where o.base_currency is distinct from n.base_currency);
      return null;
    end;
    $$`)
    .execute(db)

  const attach = (table: string, fn: string, ops: readonly StatementOp[]) =>
    attachStatementTriggers(db, table, 'report_closings', fn, ops)
  await attach('transactions', 'hearth_report_closings_transactions', EVERY_WRITE)
  await attach('transaction_splits', 'hearth_report_closings_splits', EVERY_WRITE)
  await attach('accounts', 'hearth_report_closings_accounts', ['update', 'delete'])
  await attach('households', 'hearth_report_closings_households', ['update'])
}
