import { type Kysely, sql } from 'kysely'

/**
 * Recomputes one household's `forecast_days` from its ledger in one statement, for a replica that
 * loads a whole snapshot: there the statement triggers of 0030, which add each page's rows to the
 * sums as it lands, are paused for the load (they cost a 50,000-row first sync several seconds
 * on a loaded machine, 25 pages each grouping and upserting into a growing table), and this
 * function adds everything once at the end. The sums are the same as 0030's triggers keep:
 * live rows of kind `normal` that are not transfer legs, a split row's parts in their categories.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const live = `t.deleted_at is null and t.merged_into_id is null and t.transfer_group_id is null
      and t.kind = 'normal'`
  await sql
    .raw(`
    create function hearth_forecast_days_rebuild(p_household text) returns void language sql as $$
      delete from forecast_days where household_id = p_household;
      insert into forecast_days (household_id, date, account_id, category_id, recurring, spent_cents)
      select household_id, date, account_id, category_id, recurring, sum(spent)
      from (
        select t.household_id, t.date, t.account_id, coalesce(t.category_id, '') as category_id,
               t.source = 'recurring' as recurring, -t.amount_cents as spent
        from transactions t
        where t.household_id = p_household and ${live}
        union all
        select t.household_id, t.date, t.account_id, x.category_id, t.source = 'recurring', x.spent
        from transactions t
        join transaction_splits s on s.household_id = t.household_id and s.transaction_id = t.id
        cross join lateral (values (coalesce(s.category_id, t.category_id, ''), -s.amount_cents),
          (coalesce(t.category_id, ''), s.amount_cents)) as x(category_id, spent)
        where t.household_id = p_household and ${live}
      ) c
      group by household_id, date, account_id, category_id, recurring
      having sum(spent) <> 0;
    $$`)
    .execute(db)
}
