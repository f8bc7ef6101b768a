import { SCOPES } from '@hearth/engine'
import { describe, expect, it } from 'vitest'
import { type ApiClient, useTestServer } from '../src/index.ts'
import { expectProblem, expectStatus, H } from './catalog-fixture.ts'
import { createAccount, createTransaction } from './ledger-fixture.ts'

const server = useTestServer()

async function ageOfMoney(api: ApiClient, query = '') {
  return expectStatus(await api.get(`${H}/budgets/age-of-money${query}`), 200)
}

async function spend(api: ApiClient, accountId: string, date: string, amountCents: number, times = 1) {
  const rows = []
  for (let i = 0; i < times; i++) rows.push(await createTransaction(api, accountId, { date, amountCents }))
  return rows
}

async function transfer(api: ApiClient, from: string, to: string, date: string, amountCents: number) {
  return expectStatus(
    await api.post(`${H}/transactions/transfer`, { fromAccountId: from, toAccountId: to, date, amountCents }),
    201,
  )
}

describe('GET H/budgets/age-of-money', () => {
  it('answers null with no outflows, under its own path rather than as a month', async () => {
    const { api } = await server.newOwner()
    expect(await ageOfMoney(api, '?asOf=2026-01-31')).toEqual({
      days: null,
      asOf: '2026-01-31',
      outflows: [],
    })
    const today = await ageOfMoney(api)
    expect(today.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/)
  })

  it("works YNAB's buckets: an outflow spanning two inflows takes their weighted age", async () => {
    const { api } = await server.newOwner()
    const checking = await createAccount(api, {
      openingBalanceCents: 30_000,
      openingBalanceDate: '2026-01-01',
    })
    await createTransaction(api, checking.id, { date: '2026-01-15', amountCents: 30_000 })
    await spend(api, checking.id, '2026-01-10', -2_000, 9)
    expect((await ageOfMoney(api, '?asOf=2026-01-31')).days).toBeNull()
    const rent = await createTransaction(api, checking.id, { date: '2026-01-20', amountCents: -20_000 })
    // Nine purchases 9 days after the opening balance; rent takes the last $120 of it (19 days)
    // and $80 of the Jan 15 pay (5 days): 13.4 days. (9 * 9 + 13.4) / 10 = 9.44, so 9 days.
    const aom = await ageOfMoney(api, '?asOf=2026-01-31')
    expect(aom.days).toBe(9)
    expect(aom.outflows).toHaveLength(10)
    expect(aom.outflows.at(-1)).toEqual({
      transactionId: rent.id,
      date: '2026-01-20',
      amountCents: '-20000',
      ageDays: 13,
    })
    expect(aom.outflows.slice(0, 9).every((o: any) => o.ageDays === 9 && o.date === '2026-01-10')).toBe(true)
    // Rows dated after asOf are left out.
    expect((await ageOfMoney(api, '?asOf=2026-01-19')).days).toBeNull()
  })

  it('counts card payments and transfers off budget as outflows, and leaves out transfers between cash accounts, card spending, other currencies and deleted rows', async () => {
    const { api } = await server.newOwner()
    const household = expectStatus(await api.get('/households/current'), 200)
    const foreign = household.baseCurrency === 'JPY' ? 'CHF' : 'JPY'
    const checking = await createAccount(api, {
      openingBalanceCents: 100_000,
      openingBalanceDate: '2026-01-01',
    })
    const savings = await createAccount(api, { name: 'Savings' })
    const brokerage = await createAccount(api, { name: 'Brokerage', type: 'tracking' })
    const card = await createAccount(api, { name: 'Visa', type: 'credit' })
    const abroad = await createAccount(api, {
      name: 'Abroad',
      currency: foreign,
      openingBalanceCents: 100_000,
      openingBalanceDate: '2026-01-01',
    })
    await spend(api, checking.id, '2026-01-11', -1_000, 7)
    await transfer(api, checking.id, savings.id, '2026-01-11', 20_000)
    await transfer(api, savings.id, checking.id, '2026-01-12', 5_000)
    await transfer(api, checking.id, brokerage.id, '2026-01-11', 1_000)
    await spend(api, card.id, '2026-01-05', -5_000)
    await transfer(api, checking.id, card.id, '2026-01-11', 1_000)
    await spend(api, abroad.id, '2026-01-11', -1_000, 3)
    const [gone] = await spend(api, checking.id, '2026-01-11', -1_000)
    expectStatus(await api.delete(`${H}/transactions/${gone.id}`), 204)
    // Seven purchases, the brokerage transfer and the card payment: nine outflows.
    expect((await ageOfMoney(api, '?asOf=2026-02-28')).days).toBeNull()

    await spend(api, checking.id, '2026-01-21', -1_000)
    // Nine outflows ten days after the opening balance, one twenty days after: 11 days.
    const aom = await ageOfMoney(api, '?asOf=2026-02-28')
    expect(aom.days).toBe(11)
    expect(aom.outflows.map((o: any) => o.ageDays)).toEqual([10, 10, 10, 10, 10, 10, 10, 10, 10, 20])
  })

  it('needs read:budgets, and refuses a bad asOf or an unknown parameter', async () => {
    const owner = await server.newOwner()
    const token = await server.issueKey(
      owner.userId,
      SCOPES.filter((s) => s !== 'read:budgets'),
    )
    const res = await fetch(`${server.url}${H}/budgets/age-of-money`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(res.status).toBe(403)
    expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE')
    expectProblem(await owner.api.get(`${H}/budgets/age-of-money?asOf=2026-02-30`), 400, 'VALIDATION_FAILED')
    expectProblem(await owner.api.get(`${H}/budgets/age-of-money?month=2026-02`), 400, 'VALIDATION_FAILED')
  })
})
