import { operations } from '@hearth/engine'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { ledgerHousehold, newAccount, newTransaction } from '../test-fixture.ts'

describe('transactions.dailySummary', () => {
  it('converts each day to the base currency and lists currencies without a rate as unconverted', async () => {
    const h = await ledgerHousehold({ baseCurrency: 'EUR' })
    const eur = await newAccount(h, { openingBalanceCents: 99999, openingBalanceDate: '2024-03-01' })
    const eur2 = await newAccount(h, { name: 'Savings' })
    const usd = await newAccount(h, { name: 'Dollars', currency: 'USD' })
    const gbp = await newAccount(h, { name: 'Pounds', currency: 'GBP' })
    await h.run(operations.exchangeRates.upsert, { fromCurrency: 'USD', toCurrency: 'EUR', rate: '0.9' })
    await h.run(operations.exchangeRates.upsert, { fromCurrency: 'EUR', toCurrency: 'GBP', rate: '0.85' })
    const on = (accountId: string, date: string, amountCents: number) =>
      newTransaction(h, accountId, { date, amountCents })
    await on(eur.id, '2024-03-01', 10000)
    await on(eur.id, '2024-03-01', -2500)
    await on(eur.id, '2024-03-01', -500)
    await on(usd.id, '2024-03-01', -1000)
    await on(usd.id, '2024-03-01', 333)
    await on(gbp.id, '2024-03-02', -700)
    const gone = await on(eur.id, '2024-03-02', -100000)
    await h.run(operations.transactions.delete, { id: gone.id })
    await h.run(operations.transactions.transfer, {
      fromAccountId: eur.id,
      toAccountId: eur2.id,
      amountCents: 5000,
      date: '2024-03-02',
      fromTransactionId: ulid(),
      toTransactionId: ulid(),
    })
    const summary = await h.read(operations.transactions.dailySummary, {
      fromDate: '2024-03-01',
      toDate: '2024-03-03',
    })
    expect(summary.baseCurrency).toBe('EUR')
    expect(summary.days).toEqual([
      // 333 USD cents at 0.9 is 299.7, rounded to 300.
      { date: '2024-03-01', moneyInCents: '10300', moneyOutCents: '3900', count: 5 },
      { date: '2024-03-02', moneyInCents: '0', moneyOutCents: '0', count: 1 },
      { date: '2024-03-03', moneyInCents: '0', moneyOutCents: '0', count: 0 },
    ])
    expect(summary.totals).toEqual({ moneyInCents: '10300', moneyOutCents: '3900', count: 6 })
    expect(summary.byCurrency).toEqual([
      { currency: 'EUR', moneyInCents: '10000', moneyOutCents: '3000', count: 3, rate: '1', converted: true },
      { currency: 'GBP', moneyInCents: '0', moneyOutCents: '700', count: 1, rate: null, converted: false },
      { currency: 'USD', moneyInCents: '333', moneyOutCents: '1000', count: 2, rate: '0.9', converted: true },
    ])
    expect(summary.unconvertedCurrencies).toEqual(['GBP'])
    const usdOnly = await h.read(operations.transactions.dailySummary, {
      fromDate: '2024-03-01',
      toDate: '2024-03-01',
      accountId: usd.id,
    })
    expect(usdOnly.days).toEqual([
      { date: '2024-03-01', moneyInCents: '300', moneyOutCents: '900', count: 2 },
    ])
  })

  it('stays exact when a large rate takes the totals past 2^53', async () => {
    const h = await ledgerHousehold({ baseCurrency: 'USD' })
    const eur = await newAccount(h, { name: 'Euros', currency: 'EUR' })
    await h.run(operations.exchangeRates.upsert, {
      fromCurrency: 'EUR',
      toCurrency: 'USD',
      rate: '999999999999',
    })
    await newTransaction(h, eur.id, { date: '2024-03-01', amountCents: 9_000_000_000_000 })
    await newTransaction(h, eur.id, { date: '2024-03-02', amountCents: 9_000_000_000_000 })
    const summary = await h.read(operations.transactions.dailySummary, {
      fromDate: '2024-03-01',
      toDate: '2024-03-02',
    })
    // 9e12 * 999999999999 = 8999999999991000000000000, per day; it used to throw a RangeError (a 500).
    expect(summary.days.map((d) => d.moneyInCents)).toEqual([
      '8999999999991000000000000',
      '8999999999991000000000000',
    ])
    expect(summary.totals.moneyInCents).toBe('17999999999982000000000000')
    expect(summary.byCurrency[0]).toMatchObject({ currency: 'EUR', moneyInCents: '18000000000000' })
  })

  it('bounds the window at 92 days and defaults to the 30 days ending today', async () => {
    const h = await ledgerHousehold({ timeZone: 'UTC' })
    const ok = await h.read(operations.transactions.dailySummary, {
      fromDate: '2024-01-01',
      toDate: '2024-04-01',
    })
    expect(ok.days).toHaveLength(92)
    await expect(
      h.read(operations.transactions.dailySummary, { fromDate: '2024-01-01', toDate: '2024-04-02' }),
    ).rejects.toMatchObject({ status: 400, code: 'WINDOW_TOO_LARGE' })
    await expect(
      h.read(operations.transactions.dailySummary, { fromDate: '2024-02-01', toDate: '2024-01-01' }),
    ).rejects.toMatchObject({ status: 400, code: 'INVALID_DATE_RANGE' })
    const recent = await h.read(
      operations.transactions.dailySummary,
      {},
      { now: new Date('2024-03-31T10:00:00Z') },
    )
    expect([recent.fromDate, recent.toDate, recent.days.length]).toEqual(['2024-03-02', '2024-03-31', 30])
  })
})

describe('transactions.stalePendingCount', () => {
  it('counts hand-entered rows pending at least N days after their date on bank-fed accounts', async () => {
    const h = await ledgerHousehold({ timeZone: 'UTC' })
    const now = new Date('2024-03-20T12:00:00Z')
    const fed = await newAccount(h, { bankFed: true })
    const manualOnly = await newAccount(h, { name: 'Cash jar' })
    await newTransaction(h, fed.id, { date: '2024-03-13' })
    await newTransaction(h, fed.id, { date: '2024-03-01' })
    await newTransaction(h, fed.id, { date: '2024-03-14' })
    await newTransaction(h, fed.id, { date: '2024-03-01', status: 'cleared' })
    await newTransaction(h, fed.id, { date: '2024-03-01', importedId: 'b1', status: 'pending' })
    await newTransaction(h, manualOnly.id, { date: '2024-03-01' })
    expect(await h.read(operations.transactions.stalePendingCount, {}, { now })).toEqual({
      count: 2,
      days: 7,
      asOf: '2024-03-20',
    })
    expect((await h.read(operations.transactions.stalePendingCount, { days: '6' }, { now })).count).toBe(3)
    expect((await h.read(operations.transactions.stalePendingCount, { days: '30' }, { now })).count).toBe(0)
    await expect(
      h.read(operations.transactions.stalePendingCount, { days: '-1' }, { now }),
    ).rejects.toMatchObject({
      status: 400,
    })
  })
})
