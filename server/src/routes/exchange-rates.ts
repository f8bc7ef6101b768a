import { ExchangeRateListSchema, ExchangeRateSchema } from '@hearth/contracts'
import { operations } from '@hearth/engine'
import { operationRoute } from '../http/operation-route.ts'

const tag = 'Exchange rates'
const rates = '/households/{householdId}/exchange-rates'
const pair = { fromCurrency: 'fromCurrency', toCurrency: 'toCurrency' }

/** The household's exchange-rate table. */
export const exchangeRateRoutes = [
  operationRoute(operations.exchangeRates.list, {
    method: 'get',
    path: rates,
    status: 200,
    tag,
    summary: 'List exchange rates',
    response: ExchangeRateListSchema,
    responseDescription: 'The rates.',
    notes: "The household's rates, used to convert daily summaries to the base currency.",
  }),
  operationRoute(operations.exchangeRates.upsert, {
    method: 'put',
    path: `${rates}/{fromCurrency}/{toCurrency}`,
    status: 200,
    tag,
    summary: 'Set the rate of a currency pair',
    params: pair,
    response: ExchangeRateSchema,
    responseDescription: 'The rate as stored.',
    notes:
      'Creates or replaces the rate: one `fromCurrency` buys `rate` units of `toCurrency`. Send the rate as a ' +
      'decimal string such as "1.0825" (at most 12 digits each side, greater than zero) to keep it exact. Daily ' +
      'summaries use the rate from an account currency to the base currency; no inverse is derived.',
  }),
  operationRoute(operations.exchangeRates.delete, {
    method: 'delete',
    path: `${rates}/{fromCurrency}/{toCurrency}`,
    status: 204,
    tag,
    summary: 'Delete the rate of a currency pair',
    params: pair,
    responseDescription: 'Deleted.',
    notes: 'Amounts in that currency then show as unconverted. An unknown pair answers 404.',
  }),
]
