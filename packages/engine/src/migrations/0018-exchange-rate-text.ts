import { type Kysely, sql } from 'kysely'

/**
 * A rate is held as its exact decimal text instead of `numeric`. Every row a device receives
 * passes through JSON: the change log's `to_jsonb` wrote a numeric as a JSON number, and
 * `JSON.parse` on the way to the device made it a double, so a rate of more than 15 or so
 * significant digits (up to 24 are allowed) came out rounded on every device, and a summary
 * converted there disagreed with the server's. As text it travels as a JSON string, digit for
 * digit. Nothing computes with a rate in SQL: the engine converts with integer arithmetic
 * (`convertCentsExact`). The checks keep what `numeric … check (rate > 0)` and the API's pattern
 * kept: at most 12 digits either side of the point, and not zero.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table exchange_rates drop constraint if exists exchange_rates_rate_check`.execute(db)
  await sql`alter table exchange_rates alter column rate type text using rate::text`.execute(db)
  await sql`
    alter table exchange_rates add constraint exchange_rates_rate_check
      check (rate ~ '^[0-9]{1,12}(\\.[0-9]{1,12})?$' and rate ~ '[1-9]')`.execute(db)
}
