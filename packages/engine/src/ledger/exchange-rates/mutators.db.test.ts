import { operations } from '@hearth/engine'
import { describe, expect, it } from 'vitest'
import { ledgerHousehold, outboxEvents } from '../test-fixture.ts'

describe('exchange rates', () => {
  it('upserts one rate per ordered pair, lists them and deletes them', async () => {
    const h = await ledgerHousehold()
    const first = await h.run(operations.exchangeRates.upsert, {
      fromCurrency: 'USD',
      toCurrency: 'EUR',
      rate: '0.92000',
    })
    expect(first).toMatchObject({ fromCurrency: 'USD', toCurrency: 'EUR', rate: '0.92' })
    await h.run(operations.exchangeRates.upsert, { fromCurrency: 'USD', toCurrency: 'EUR', rate: 0.93 })
    await h.run(operations.exchangeRates.upsert, { fromCurrency: 'CHF', toCurrency: 'EUR', rate: '1.05' })
    const { items } = await h.read(operations.exchangeRates.list, {})
    expect(items.map((r) => [r.fromCurrency, r.toCurrency, r.rate])).toEqual([
      ['CHF', 'EUR', '1.05'],
      ['USD', 'EUR', '0.93'],
    ])
    await h.run(operations.exchangeRates.delete, { fromCurrency: 'CHF', toCurrency: 'EUR' })
    await expect(
      h.run(operations.exchangeRates.delete, { fromCurrency: 'CHF', toCurrency: 'EUR' }),
    ).rejects.toMatchObject({ status: 404 })
    expect((await h.read(operations.exchangeRates.list, {})).items).toHaveLength(1)
    expect((await outboxEvents(h)).map((e) => e.type)).toEqual([
      'exchangeRate.updated',
      'exchangeRate.updated',
      'exchangeRate.updated',
      'exchangeRate.deleted',
    ])
  })

  it('refuses zero, negative, float-exponent and same-currency rates with 400', async () => {
    const h = await ledgerHousehold()
    for (const args of [
      { fromCurrency: 'USD', toCurrency: 'EUR', rate: '0' },
      { fromCurrency: 'USD', toCurrency: 'EUR', rate: '-1' },
      { fromCurrency: 'USD', toCurrency: 'EUR', rate: 1e-7 },
      { fromCurrency: 'USD', toCurrency: 'EUR', rate: '1,5' },
      { fromCurrency: 'EUR', toCurrency: 'EUR', rate: '1' },
      { fromCurrency: 'usd', toCurrency: 'EUR', rate: '1' },
    ]) {
      await expect(h.run(operations.exchangeRates.upsert, args)).rejects.toMatchObject({ status: 400 })
    }
  })
})
