import { afterEach, describe, expect, it } from 'vitest'
import { newOwner, useTestServer } from '../src/index.ts'
import { closeDevices, eventually, expectConverged, newDevice } from './devices.ts'

const server = useTestServer()
afterEach(async () => {
  await closeDevices()
})

/** 24 significant digits, the most a rate may have: far past what a double holds exactly. */
const LONG = '123456789012.123456789012'

describe('exchange rates through the SDK', () => {
  it('keeps every digit of a rate on the device, by snapshot, by delta and from its own write', async () => {
    const owner = await newOwner(server)
    const H = `/households/${owner.householdId}`
    expect((await owner.api.put(`${H}/exchange-rates/EUR/USD`, { rate: LONG })).status).toBe(200)
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    // By snapshot.
    expect((await device.query.exchangeRates.list({})).items).toMatchObject([
      { fromCurrency: 'EUR', toCurrency: 'USD', rate: LONG },
    ])

    // By delta.
    expect((await owner.api.put(`${H}/exchange-rates/GBP/USD`, { rate: '0.000000000001' })).status).toBe(200)
    await eventually(async () => {
      const rates = (await device.query.exchangeRates.list({})).items
      expect(rates.find((r) => r.fromCurrency === 'GBP')?.rate).toBe('0.000000000001')
    })

    // From the device's own write, which the server then echoes back.
    await device.mutate.exchangeRates.upsert({
      fromCurrency: 'CHF',
      toCurrency: 'USD',
      rate: '987654321098.765432109876',
    })
    await device.sync.whenSynced()
    const rest = await owner.api.get(`${H}/exchange-rates`)
    expect(rest.body.items.find((r: any) => r.fromCurrency === 'CHF').rate).toBe('987654321098.765432109876')
    expect((await device.query.exchangeRates.list({})).items).toEqual(rest.body.items)
    await expectConverged(server, owner.householdId, [device])

    // A summary converts at the exact rate on both sides: 1,000,000 euro cents at the long rate
    // are far beyond a double, so only an exact rate gives the same digits.
    const eur = await owner.api.post(`${H}/accounts`, {
      name: 'Euros',
      type: 'cash',
      currency: 'EUR',
    })
    expect(eur.status).toBe(201)
    const income = { accountId: eur.body.id, date: '2026-01-05', amountCents: 1_000_000 }
    expect((await owner.api.post(`${H}/transactions`, income)).status).toBe(201)
    const path = `${H}/transactions/daily-summary?fromDate=2026-01-01&toDate=2026-01-10`
    const onServer = await owner.api.get(path)
    expect(onServer.status).toBe(200)
    expect(onServer.body.totals.moneyInCents).toBe('123456789012123457')
    await eventually(async () => {
      expect(
        await device.query.transactions.dailySummary({ fromDate: '2026-01-01', toDate: '2026-01-10' }),
      ).toEqual(onServer.body)
    })
  })
})
