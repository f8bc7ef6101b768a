import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { createCategory, createGroup, expectProblem, expectStatus, H } from './catalog-fixture.ts'
import { createAccount, createTransaction } from './ledger-fixture.ts'

const server = useTestServer()

describe('category suggestions over HTTP', () => {
  it('suggests from the household’s rows, and a rejection is listed on the payee and never offered again', async () => {
    const { api } = await server.newOwner()
    const account = await createAccount(api)
    const group = await createGroup(api, 'G')
    const food = await createCategory(api, group.id, 'Food')
    const fun = await createCategory(api, group.id, 'Fun')
    // The history arrives as an import: categorized rows the model trains on (an import teaches no rule).
    const history = []
    for (let i = 0; i < 3; i++) {
      const common = { accountId: account.id, date: '2024-03-10', amountCents: -500 }
      history.push({ ...common, payeeName: 'Bakery', categoryId: food.id, memo: 'bread' })
      history.push({ ...common, payeeName: 'Cinema', categoryId: fun.id, memo: 'movie' })
    }
    expectStatus(await api.post(`${H}/transactions/bulk`, { transactions: history }), 201)
    const row = await createTransaction(api, account.id, { payeeName: 'Bakery' })
    expect(row).toMatchObject({ categoryId: null, suggestedCategoryId: food.id })
    expect(row.suggestionConfidence).toBeGreaterThanOrEqual(0.5)
    const rejected = expectStatus(await api.post(`${H}/transactions/${row.id}/reject-suggestion`), 200)
    expect(rejected).toMatchObject({ categoryId: null, suggestedCategoryId: null })
    const list = expectStatus(await api.get(`${H}/payees/${row.payeeId}/rejected-categories`), 200)
    expect(list.items.map((r: any) => r.categoryId)).toEqual([food.id])
    const next = await createTransaction(api, account.id, { payeeName: 'Bakery' })
    expect(next.suggestedCategoryId).not.toBe(food.id)

    const cinema = await createTransaction(api, account.id, { payeeName: 'Cinema' })
    const accepted = expectStatus(await api.post(`${H}/transactions/${cinema.id}/accept-suggestion`), 200)
    expect(accepted).toMatchObject({ categoryId: fun.id, suggestedCategoryId: null })
    expectProblem(await api.get(`${H}/payees/${food.id}/rejected-categories`), 404, 'NOT_FOUND')
  })
})
