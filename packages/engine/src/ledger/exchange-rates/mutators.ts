import { notFound } from '../../errors.ts'
import { defineMutator } from '../../mutator/define.ts'
import { type ExchangeRate, normalizeRate, toExchangeRate } from './model.ts'
import { DeleteExchangeRateArgsSchema, UpsertExchangeRateArgsSchema } from './schema.ts'

/** The row key of a currency pair, such as `USD-EUR`. */
export function exchangeRateId(fromCurrency: string, toCurrency: string): string {
  return `${fromCurrency}-${toCurrency}`
}

/** Sets how many units of `toCurrency` one `fromCurrency` buys; one rate per ordered pair. */
export const upsertExchangeRate = defineMutator({
  audience: 'device',
  description: 'Sets how many units of `toCurrency` one `fromCurrency` buys.',
  scope: 'write:transactions',
  args: UpsertExchangeRateArgsSchema,
  async run(tx, args, ctx): Promise<ExchangeRate> {
    const rate = normalizeRate(args.rate)
    const row = await tx
      .insertInto('exchange_rates')
      .values({
        household_id: ctx.householdId,
        id: exchangeRateId(args.fromCurrency, args.toCurrency),
        from_currency: args.fromCurrency,
        to_currency: args.toCurrency,
        rate,
        created_at: ctx.now,
        updated_at: ctx.now,
      })
      .onConflict((oc) => oc.columns(['household_id', 'id']).doUpdateSet({ rate, updated_at: ctx.now }))
      .returningAll()
      .executeTakeFirstOrThrow()
    const exchangeRate = toExchangeRate(row)
    ctx.emit('exchangeRate.updated', { exchangeRate })
    return exchangeRate
  },
})

/** Removes a pair's rate; amounts in that currency then show as unconverted. */
export const deleteExchangeRate = defineMutator({
  audience: 'device',
  description: "Removes a pair's rate.",
  scope: 'write:transactions',
  args: DeleteExchangeRateArgsSchema,
  async run(tx, args, ctx) {
    const id = exchangeRateId(args.fromCurrency, args.toCurrency)
    const row = await tx
      .deleteFrom('exchange_rates')
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst()
    if (!row) throw notFound('Exchange rate', id)
    ctx.emit('exchangeRate.deleted', { fromCurrency: args.fromCurrency, toCurrency: args.toCurrency })
    return null
  },
})
