import { ExchangeRateListSchema, ExchangeRateSchema } from '@hearth/contracts'
import { operations, runMutation, runQuery, type Store } from '@hearth/engine'
import { OpenAPIHono } from '@hono/zod-openapi'
import { type AppEnv, householdContext } from '../http/env.ts'
import { apiRoute, HouseholdParams, jsonBody, jsonResponse, z } from '../http/route.ts'

const PairParams = HouseholdParams.extend({ fromCurrency: z.string(), toCurrency: z.string() })
const tags = ['Exchange rates']

const listRates = apiRoute({
  method: 'get',
  path: '/households/{householdId}/exchange-rates',
  tags,
  summary: 'List exchange rates',
  description: "The household's rates, used to convert daily summaries to the base currency.",
  scope: 'read:transactions',
  request: { params: HouseholdParams },
  responses: { 200: jsonResponse(ExchangeRateListSchema, 'The rates.') },
})

const putRate = apiRoute({
  method: 'put',
  path: '/households/{householdId}/exchange-rates/{fromCurrency}/{toCurrency}',
  tags,
  summary: 'Set the rate of a currency pair',
  description:
    'Creates or replaces the rate: one `fromCurrency` buys `rate` units of `toCurrency`. Send the rate as a ' +
    'decimal string such as "1.0825" (at most 12 digits each side, greater than zero) to keep it exact. Daily ' +
    'summaries use the rate from an account currency to the base currency; no inverse is derived.',
  scope: 'write:transactions',
  request: {
    params: PairParams,
    body: jsonBody(z.strictObject({ rate: operations.exchangeRates.upsert.args.shape.rate })),
  },
  responses: { 200: jsonResponse(ExchangeRateSchema, 'The rate as stored.') },
})

const deleteRate = apiRoute({
  method: 'delete',
  path: '/households/{householdId}/exchange-rates/{fromCurrency}/{toCurrency}',
  tags,
  summary: 'Delete the rate of a currency pair',
  description: 'Amounts in that currency then show as unconverted. An unknown pair answers 404.',
  scope: 'write:transactions',
  request: { params: PairParams },
  responses: { 204: { description: 'Deleted.' } },
})

/** The household's exchange-rate table. */
export function exchangeRateRoutes(store: Store) {
  return new OpenAPIHono<AppEnv>()
    .openapi(listRates, async (c) => {
      const list = await runQuery(store.db, operations.exchangeRates.list, {}, householdContext(c.var))
      return c.json(list, 200)
    })
    .openapi(putRate, async (c) => {
      const { fromCurrency, toCurrency } = c.req.valid('param')
      const { result } = await runMutation(
        store.db,
        operations.exchangeRates.upsert,
        { fromCurrency, toCurrency, rate: c.req.valid('json').rate },
        householdContext(c.var),
      )
      return c.json(result, 200)
    })
    .openapi(deleteRate, async (c) => {
      const { fromCurrency, toCurrency } = c.req.valid('param')
      await runMutation(
        store.db,
        operations.exchangeRates.delete,
        { fromCurrency, toCurrency },
        householdContext(c.var),
      )
      return c.body(null, 204)
    })
}
