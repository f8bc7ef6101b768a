import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { type ApiClient, useTestServer } from '../src/index.ts'
import { createCategory, createGroup, expectProblem, expectStatus, H } from './catalog-fixture.ts'
import { createAccount, createTransaction, expectBalancesExact } from './ledger-fixture.ts'

const server = useTestServer()

async function twoAccounts(api: ApiClient) {
  const checking = await createAccount(api, {
    name: 'Checking',
    openingBalanceCents: 100_000,
    openingBalanceDate: '2025-01-01',
  })
  const savings = await createAccount(api, { name: 'Savings', subtype: 'savings' })
  return { checking, savings }
}

const transfer = (api: ApiClient, body: Record<string, unknown>) =>
  api.post(`${H}/transactions/transfer`, body)

describe('transfers over HTTP', () => {
  it('books two legs of opposite amounts sharing one transfer group', async () => {
    const { api } = await server.newOwner()
    const { checking, savings } = await twoAccounts(api)
    const fromTransactionId = ulid()
    const res = expectStatus(
      await transfer(api, {
        fromAccountId: checking.id,
        toAccountId: savings.id,
        amountCents: '25000',
        date: '2025-03-01',
        memo: 'rainy day',
        status: 'cleared',
        fromTransactionId,
      }),
      201,
    )
    expect(res.transferGroupId).toBe(fromTransactionId)
    expect(res.from).toMatchObject({
      id: fromTransactionId,
      accountId: checking.id,
      amountCents: '-25000',
      transferGroupId: fromTransactionId,
      memo: 'rainy day',
      status: 'cleared',
    })
    expect(res.to).toMatchObject({
      accountId: savings.id,
      amountCents: '25000',
      transferGroupId: fromTransactionId,
      date: '2025-03-01',
    })
    expect((await expectBalancesExact(api, checking.id)).balanceCents).toBe('75000')
    expect((await expectBalancesExact(api, savings.id)).balanceCents).toBe('25000')

    // An amount change on one leg moves the other; deleting one leg deletes both.
    const moved = expectStatus(
      await api.patch(`${H}/transactions/${res.to.id}`, { amountCents: 30_000 }),
      200,
    )
    expect(moved.amountCents).toBe('30000')
    expect(expectStatus(await api.get(`${H}/transactions/${res.from.id}`), 200).amountCents).toBe('-30000')
    expect((await api.delete(`${H}/transactions/${res.from.id}`)).status).toBe(204)
    expectProblem(await api.get(`${H}/transactions/${res.to.id}`), 404, 'NOT_FOUND')
    expect((await expectBalancesExact(api, checking.id)).balanceCents).toBe('100000')
    expect((await expectBalancesExact(api, savings.id)).balanceCents).toBe('0')
  })

  it('refuses transfers that cannot be booked with stable codes', async () => {
    const { api } = await server.newOwner()
    const { checking, savings } = await twoAccounts(api)
    const euros = await createAccount(api, { name: 'Euro', currency: 'EUR' })
    const foreign = await createAccount((await server.newOwner()).api)
    const base = { fromAccountId: checking.id, toAccountId: savings.id, amountCents: 100, date: '2025-03-01' }
    expectProblem(await transfer(api, { ...base, toAccountId: checking.id }), 400, 'TRANSFER_SAME_ACCOUNT')
    expectProblem(await transfer(api, { ...base, toAccountId: euros.id }), 400, 'TRANSFER_CURRENCY_MISMATCH')
    for (const amountCents of [0, -100, '1.5']) {
      expectProblem(await transfer(api, { ...base, amountCents }), 400, 'VALIDATION_FAILED')
    }
    expectProblem(await transfer(api, { ...base, categoryId: ulid() }), 400, 'VALIDATION_FAILED')
    expectProblem(await transfer(api, { ...base, date: undefined }), 400, 'VALIDATION_FAILED')
    const id = ulid()
    expectProblem(
      await transfer(api, { ...base, fromTransactionId: id, toTransactionId: id }),
      400,
      'DUPLICATE_ID',
    )
    const missing = expectProblem(await transfer(api, { ...base, toAccountId: foreign.id }), 404, 'NOT_FOUND')
    expect(missing.errors).toEqual([expect.objectContaining({ path: 'toAccountId' })])
    expectStatus(await api.post(`${H}/accounts/${savings.id}/close`), 200)
    expectProblem(await transfer(api, base), 409, 'ACCOUNT_CLOSED')
    expect((await expectBalancesExact(api, checking.id)).balanceCents).toBe('100000')
  })
})

describe('linking and unlinking transfers over HTTP', () => {
  it('lists candidates, links two rows, and unlinks them keeping payee and category', async () => {
    const { api } = await server.newOwner()
    const { checking, savings } = await twoAccounts(api)
    const group = await createGroup(api, 'Moves')
    const category = await createCategory(api, group.id, 'Savings goal')
    const out = await createTransaction(api, checking.id, {
      date: '2025-03-10',
      amountCents: -5_000,
      payeeName: 'Me',
      categoryId: category.id,
    })
    const inflow = await createTransaction(api, savings.id, { date: '2025-03-12', amountCents: 5_000 })
    await createTransaction(api, savings.id, { date: '2025-03-25', amountCents: 5_000 })
    await createTransaction(api, checking.id, { date: '2025-03-11', amountCents: 5_000 })
    await createTransaction(api, savings.id, { date: '2025-03-11', amountCents: 4_999 })

    const candidates = expectStatus(await api.get(`${H}/transactions/${out.id}/transfer-candidates`), 200)
    expect(candidates.items.map((t: any) => t.id)).toEqual([inflow.id])

    const linked = expectStatus(
      await api.post(`${H}/transactions/${out.id}/link-transfer`, { counterpartId: inflow.id }),
      200,
    )
    expect(linked.transferGroupId).toBe(out.id)
    expect(linked.transactions.map((t: any) => [t.id, t.transferGroupId])).toEqual([
      [out.id, out.id],
      [inflow.id, out.id],
    ])
    expect(expectStatus(await api.get(`${H}/transactions/${out.id}/transfer-candidates`), 200).items).toEqual(
      [],
    )
    expectProblem(
      await api.post(`${H}/transactions/${inflow.id}/link-transfer`, { counterpartId: out.id }),
      409,
      'TRANSFER_ALREADY_LINKED',
    )

    const unlinked = expectStatus(await api.post(`${H}/transactions/${inflow.id}/unlink-transfer`), 200)
    expect(unlinked.transactions).toHaveLength(2)
    const outAfter = expectStatus(await api.get(`${H}/transactions/${out.id}`), 200)
    expect(outAfter).toMatchObject({ transferGroupId: null, payeeId: out.payeeId, categoryId: category.id })
    expectProblem(await api.post(`${H}/transactions/${out.id}/unlink-transfer`), 409, 'NOT_A_TRANSFER')
    await expectBalancesExact(api, checking.id)
    await expectBalancesExact(api, savings.id)
  })

  it('refuses rows that cannot be legs, and unlinking while a leg is reconciled', async () => {
    const { api } = await server.newOwner()
    const { checking, savings } = await twoAccounts(api)
    const out = await createTransaction(api, checking.id, { amountCents: -700, status: 'cleared' })
    const sameAccount = await createTransaction(api, checking.id, { amountCents: 700 })
    const wrongAmount = await createTransaction(api, savings.id, { amountCents: 701 })
    const link = (id: string, counterpartId: string) =>
      api.post(`${H}/transactions/${id}/link-transfer`, { counterpartId })
    expectProblem(await link(out.id, sameAccount.id), 400, 'NOT_A_TRANSFER_COUNTERPART')
    expectProblem(await link(out.id, wrongAmount.id), 400, 'NOT_A_TRANSFER_COUNTERPART')
    expectProblem(await link(out.id, out.id), 400, 'NOT_A_TRANSFER_COUNTERPART')
    expectProblem(await link(out.id, ulid()), 404, 'NOT_FOUND')
    expectProblem(await api.post(`${H}/transactions/${out.id}/link-transfer`, {}), 400, 'VALIDATION_FAILED')

    const inflow = await createTransaction(api, savings.id, { amountCents: 700 })
    expectStatus(await link(out.id, inflow.id), 200)
    expectStatus(
      await api.post(`${H}/accounts/${checking.id}/reconcile`, {
        statementBalanceCents: 99_300,
        statementDate: '2025-03-31',
      }),
      200,
    )
    const refused = expectProblem(
      await api.post(`${H}/transactions/${inflow.id}/unlink-transfer`),
      409,
      'TRANSACTION_RECONCILED',
    )
    expect(refused.transactionId).toBe(out.id)
    expect(expectStatus(await api.get(`${H}/transactions/${inflow.id}`), 200).transferGroupId).toBe(out.id)
    await expectBalancesExact(api, checking.id)
  })
})
