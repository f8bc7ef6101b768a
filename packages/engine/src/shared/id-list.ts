import { type RawBuilder, sql } from 'kysely'

/**
 * A list of ids as the right side of `in`, sent as one JSON parameter: a bulk write's 10,000 ids
 * are one bound value, not 10,000 (which cost more to bind, send and parse than the lookup).
 */
export function idList(ids: readonly string[]): RawBuilder<string> {
  return sql<string>`(select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`
}
