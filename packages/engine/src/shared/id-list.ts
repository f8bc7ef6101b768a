import { type RawBuilder, sql } from 'kysely'

/**
 * A list of ids (or other text keys) as the right side of `=` (`.where('id', '=', idList(ids))`,
 * SQL `id = any($1::text[])`): one bound array, so a bulk write's 10,000 ids are one value, not
 * 10,000 (which cost more to bind, send and parse than the lookup), and the planner sees how many
 * there are. The `in (select jsonb_array_elements_text($1))` this replaced was always planned for
 * 100 ids, so a one-row write hashed every tag, flag and split row of the household to find its
 * own (a seq scan that grew with the household: issue 44) where an index probe does.
 */
export function idList(ids: readonly string[]): RawBuilder<string> {
  return sql<string>`any(${[...ids]}::text[])`
}
