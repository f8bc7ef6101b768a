import { defineQuery } from '../../mutator/define.ts'
import { type ExchangeRate, toExchangeRate } from './model.ts'
import { ListExchangeRatesArgsSchema } from './schema.ts'

/** The household's rates, by source then target currency. */
export const listExchangeRates = defineQuery({
  audience: 'device',
  description: "The household's rates, by source then target currency.",
  scope: 'read:transactions',
  args: ListExchangeRatesArgsSchema,
  async run(db, _args, ctx): Promise<{ items: ExchangeRate[] }> {
    const rows = await db
      .selectFrom('exchange_rates')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .orderBy('from_currency')
      .orderBy('to_currency')
      .execute()
    return { items: rows.map(toExchangeRate) }
  },
})
