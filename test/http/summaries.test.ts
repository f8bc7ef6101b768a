import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { expectProblem, expectStatus, H } from './catalog-fixture.ts'
import { createAccount, createTransaction } from './ledger-fixture.ts'

const server = useTestServer()

const dayOffset = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)

describe('daily summary over HTTP', () => {
  it('converts to the base currency with the household rates and lists face values per currency', async () => {
    const { api } = await server.newOwner()
    const opening = { openingBalanceCents: 100_000, openingBalanceDate: '2025-03-01' }
    const usd = await createAccount(api, { name: 'Dollars', ...opening })
    const usd2 = await createAccount(api, { name: 'More dollars' })
    const eur = await createAccount(api, { name: 'Euros', currency: 'EUR', ...opening })
    const gbp = await createAccount(api, { name: 'Pounds', currency: 'GBP' })
    await createTransaction(api, usd.id, { date: '2025-03-01', amountCents: -1_000 })
    await createTransaction(api, usd.id, { date: '2025-03-01', amountCents: 5_000 })
    await createTransaction(api, eur.id, { date: '2025-03-01', amountCents: -2_000 })
    await createTransaction(api, eur.id, { date: '2025-03-02', amountCents: 333 })
    await createTransaction(api, gbp.id, { date: '2025-03-02', amountCents: -100 })
    expectStatus(
      await api.post(`${H}/transactions/transfer`, {
        fromAccountId: usd.id,
        toAccountId: usd2.id,
        amountCents: 7_777,
        date: '2025-03-01',
      }),
      201,
    )
    const path = `${H}/transactions/daily-summary?fromDate=2025-03-01&toDate=2025-03-03`

    const face = expectStatus(await api.get(path), 200)
    expect(face).toEqual({
      baseCurrency: 'USD',
      fromDate: '2025-03-01',
      toDate: '2025-03-03',
      days: [
        { date: '2025-03-01', moneyInCents: '5000', moneyOutCents: '1000', count: 3 },
        { date: '2025-03-02', moneyInCents: '0', moneyOutCents: '0', count: 2 },
        { date: '2025-03-03', moneyInCents: '0', moneyOutCents: '0', count: 0 },
      ],
      totals: { moneyInCents: '5000', moneyOutCents: '1000', count: 5 },
      byCurrency: [
        {
          currency: 'EUR',
          moneyInCents: '333',
          moneyOutCents: '2000',
          count: 2,
          rate: null,
          converted: false,
        },
        { currency: 'GBP', moneyInCents: '0', moneyOutCents: '100', count: 1, rate: null, converted: false },
        {
          currency: 'USD',
          moneyInCents: '5000',
          moneyOutCents: '1000',
          count: 2,
          rate: '1',
          converted: true,
        },
      ],
      unconvertedCurrencies: ['EUR', 'GBP'],
    })

    expectStatus(await api.put(`${H}/exchange-rates/EUR/USD`, { rate: '1.10' }), 200)
    const converted = expectStatus(await api.get(path), 200)
    expect(converted.days.slice(0, 2)).toEqual([
      { date: '2025-03-01', moneyInCents: '5000', moneyOutCents: '3200', count: 3 },
      { date: '2025-03-02', moneyInCents: '366', moneyOutCents: '0', count: 2 },
    ])
    expect(converted.totals).toEqual({ moneyInCents: '5366', moneyOutCents: '3200', count: 5 })
    expect(converted.byCurrency[0]).toMatchObject({ currency: 'EUR', rate: '1.1', converted: true })
    expect(converted.unconvertedCurrencies).toEqual(['GBP'])

    const one = expectStatus(await api.get(`${path}&accountId=${eur.id}`), 200)
    expect(one.totals).toEqual({ moneyInCents: '366', moneyOutCents: '2200', count: 2 })
  })

  it('covers at most 92 days and refuses bad windows with 400', async () => {
    const { api } = await server.newOwner()
    const path = `${H}/transactions/daily-summary`
    expect(
      expectStatus(await api.get(`${path}?fromDate=2025-01-01&toDate=2025-04-02`), 200).days,
    ).toHaveLength(92)
    const tooLong = expectProblem(
      await api.get(`${path}?fromDate=2025-01-01&toDate=2025-04-03`),
      400,
      'WINDOW_TOO_LARGE',
    )
    expect(tooLong.errors).toEqual([expect.objectContaining({ path: 'toDate' })])
    expectProblem(await api.get(`${path}?fromDate=2025-03-02&toDate=2025-03-01`), 400, 'INVALID_DATE_RANGE')
    expectProblem(await api.get(`${path}?fromDate=March`), 400, 'VALIDATION_FAILED')
    expectProblem(await api.get(`${path}?currency=EUR`), 400, 'VALIDATION_FAILED')
    const fallback = expectStatus(await api.get(path), 200)
    expect(fallback.days).toHaveLength(30)
    expect([dayOffset(0), dayOffset(-1), dayOffset(1)]).toContain(fallback.toDate)
  })
})

describe('exchange rates over HTTP', () => {
  it('sets, lists, replaces and deletes rates per ordered currency pair', async () => {
    const { api } = await server.newOwner()
    const first = expectStatus(await api.put(`${H}/exchange-rates/EUR/USD`, { rate: '1.0825' }), 200)
    expect(first).toMatchObject({ fromCurrency: 'EUR', toCurrency: 'USD', rate: '1.0825' })
    expectStatus(await api.put(`${H}/exchange-rates/GBP/USD`, { rate: 1.27 }), 200)
    const replaced = expectStatus(await api.put(`${H}/exchange-rates/EUR/USD`, { rate: '01.0900' }), 200)
    expect(replaced.rate).toBe('1.09')
    expect(replaced.createdAt).toBe(first.createdAt)
    const list = expectStatus(await api.get(`${H}/exchange-rates`), 200)
    expect(list.items.map((r: any) => [r.fromCurrency, r.toCurrency, r.rate])).toEqual([
      ['EUR', 'USD', '1.09'],
      ['GBP', 'USD', '1.27'],
    ])
    expect((await api.delete(`${H}/exchange-rates/EUR/USD`)).status).toBe(204)
    expectProblem(await api.delete(`${H}/exchange-rates/EUR/USD`), 404, 'NOT_FOUND')
    expect(expectStatus(await api.get(`${H}/exchange-rates`), 200).items).toHaveLength(1)

    const other = await server.newOwner()
    expect(expectStatus(await other.api.get(`${H}/exchange-rates`), 200).items).toEqual([])
    expectProblem(await other.api.delete(`${H}/exchange-rates/GBP/USD`), 404, 'NOT_FOUND')
  })

  it('refuses bad rates and pairs with 400', async () => {
    const { api } = await server.newOwner()
    for (const rate of ['abc', '0', '0.000', '-1', -1, '1e3', '', '1.1234567890123']) {
      expectProblem(await api.put(`${H}/exchange-rates/EUR/USD`, { rate }), 400, 'VALIDATION_FAILED')
    }
    expectProblem(await api.put(`${H}/exchange-rates/USD/USD`, { rate: '1' }), 400, 'VALIDATION_FAILED')
    expectProblem(await api.put(`${H}/exchange-rates/eur/USD`, { rate: '1' }), 400, 'VALIDATION_FAILED')
    expectProblem(
      await api.put(`${H}/exchange-rates/EUR/USD`, { rate: '1', note: 'x' }),
      400,
      'VALIDATION_FAILED',
    )
    expectProblem(await api.put(`${H}/exchange-rates/EUR/USD`, {}), 400, 'VALIDATION_FAILED')
  })

  it('needs read:transactions to list and write:transactions to change', async () => {
    const reader = await server.newOwner(['read:transactions'])
    const writer = await server.newOwner(['write:transactions'])
    expectProblem(
      await reader.api.put(`${H}/exchange-rates/EUR/USD`, { rate: '1' }),
      403,
      'INSUFFICIENT_SCOPE',
    )
    expectProblem(await reader.api.delete(`${H}/exchange-rates/EUR/USD`), 403, 'INSUFFICIENT_SCOPE')
    expectProblem(await writer.api.get(`${H}/exchange-rates`), 403, 'INSUFFICIENT_SCOPE')
    expect((await reader.api.get(`${H}/exchange-rates`)).status).toBe(200)
  })
})

describe('stale pending count over HTTP', () => {
  it('counts hand-entered rows still pending at least N days on bank-fed accounts', async () => {
    const { api } = await server.newOwner()
    const fed = await createAccount(api, { name: 'Fed', bankFed: true })
    const manual = await createAccount(api, { name: 'Cash box' })
    await createTransaction(api, fed.id, { date: dayOffset(-10) })
    await createTransaction(api, fed.id, { date: dayOffset(-3) })
    await createTransaction(api, fed.id, { date: dayOffset(-10), status: 'cleared' })
    await createTransaction(api, fed.id, { date: dayOffset(-10), importedId: 'b-1', status: 'pending' })
    await createTransaction(api, manual.id, { date: dayOffset(-30) })
    const path = `${H}/transactions/stale-pending-count`
    const count = expectStatus(await api.get(path), 200)
    expect(count).toMatchObject({ count: 1, days: 7 })
    expect([dayOffset(0), dayOffset(-1), dayOffset(1)]).toContain(count.asOf)
    expect(expectStatus(await api.get(`${path}?days=2`), 200).count).toBe(2)
    expect(expectStatus(await api.get(`${path}?days=11`), 200).count).toBe(0)
    expect(expectStatus(await api.get(`${path}?days=2&accountId=${manual.id}`), 200).count).toBe(0)
    for (const days of ['-1', 'abc', '2.5', '99999']) {
      expectProblem(await api.get(`${path}?days=${days}`), 400, 'VALIDATION_FAILED')
    }
    expectProblem(await api.get(`${path}?limit=3`), 400, 'VALIDATION_FAILED')
    expect(expectStatus(await api.get(`${path}?accountId=${ulid()}`), 200).count).toBe(0)
  })
})
