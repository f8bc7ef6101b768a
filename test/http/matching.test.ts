import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { type ApiClient, useTestServer } from '../src/index.ts'
import { createCategory, createGroup, expectProblem, expectStatus, H } from './catalog-fixture.ts'
import {
  bulkCreate,
  createAccount,
  createTransaction,
  expectBalancesExact,
  getAccount,
  listAll,
} from './ledger-fixture.ts'

const server = useTestServer()

/** An account with one hand-entered row carrying payee, category, memo and a tag. */
async function withHandEntered(api: ApiClient) {
  const account = await createAccount(api, { openingBalanceCents: 100_000, openingBalanceDate: '2025-01-01' })
  const group = await createGroup(api, 'Everyday')
  const food = await createCategory(api, group.id, 'Food')
  const tag = expectStatus(await api.post(`${H}/tags`, { name: 'Weekly' }), 201)
  const hand = await createTransaction(api, account.id, {
    date: '2025-03-03',
    amountCents: -4_250,
    payeeName: 'Market',
    categoryId: food.id,
    memo: 'veg box',
    tagIds: [tag.id],
  })
  return { account, food, tag, hand }
}

const get = async (api: ApiClient, id: string) => expectStatus(await api.get(`${H}/transactions/${id}`), 200)

describe('bank imports and matching over HTTP', () => {
  it('matches an import with its one hand-entered twin, unmatches it, and re-imports without duplicates', async () => {
    const { api } = await server.newOwner()
    const { account, food, tag, hand } = await withHandEntered(api)
    expect(account.bankFed).toBe(false)
    const bankRows = [
      {
        accountId: account.id,
        date: '2025-03-05',
        amountCents: '-4250',
        importedId: 'stmt-1',
        payeeName: 'MARKET 0042',
      },
      { accountId: account.id, date: '2025-03-06', amountCents: -999, importedId: 'stmt-2' },
    ]
    const imported = await bulkCreate(api, bankRows)
    expect(imported).toMatchObject({ createdCount: 2, skippedCount: 0, matchedCount: 1, skipped: [] })
    const bankId = imported.matched[0].transactionId
    expect(imported.matched).toEqual([{ index: 0, transactionId: bankId, matchedTransactionId: hand.id }])
    expect(imported.items.map((t: any) => t.importedId)).toEqual(['stmt-2'])
    expect(imported.items[0]).toMatchObject({ source: 'imported', status: 'cleared' })

    const survivor = await get(api, hand.id)
    expect(survivor).toMatchObject({
      date: '2025-03-05',
      status: 'cleared',
      payeeId: hand.payeeId,
      categoryId: food.id,
      memo: 'veg box',
      tagIds: [tag.id],
      matchedTransactionId: bankId,
    })
    expectProblem(await api.get(`${H}/transactions/${bankId}`), 404, 'NOT_FOUND')
    let rows = await listAll(api, `accountId=${account.id}`)
    expect(rows.map((r) => r.id)).not.toContain(bankId)
    expect((await expectBalancesExact(api, account.id)).balanceCents).toBe(String(100_000 - 4_250 - 999))
    expect((await getAccount(api, account.id)).bankFed).toBe(true)

    // Re-running the same import changes nothing.
    const again = await bulkCreate(api, bankRows)
    expect(again).toMatchObject({
      createdCount: 0,
      skippedCount: 2,
      matchedCount: 0,
      items: [],
      skipped: [
        { index: 0, importedId: 'stmt-1' },
        { index: 1, importedId: 'stmt-2' },
      ],
    })
    expect(await listAll(api, `accountId=${account.id}`)).toHaveLength(rows.length)

    // Unmatch restores both rows exactly.
    const unmatched = expectStatus(await api.post(`${H}/transactions/${hand.id}/unmatch`), 200)
    expect(unmatched.transactions.map((t: any) => t.id)).toEqual([hand.id, bankId])
    const [restored, bank] = unmatched.transactions
    expect(restored).toMatchObject({
      date: '2025-03-03',
      status: 'pending',
      matchedTransactionId: null,
      memo: 'veg box',
    })
    expect(bank).toMatchObject({
      date: '2025-03-05',
      amountCents: '-4250',
      importedId: 'stmt-1',
      source: 'imported',
    })
    expect(await get(api, hand.id)).toEqual(restored)
    rows = await listAll(api, `accountId=${account.id}`)
    expect(rows.map((r) => r.id)).toContain(bankId)
    expect((await expectBalancesExact(api, account.id)).balanceCents).toBe(String(100_000 - 2 * 4_250 - 999))
    expectProblem(await api.post(`${H}/transactions/${hand.id}/unmatch`), 409, 'NOT_MATCHED')

    // The unmatched import is still known: a third run skips it too.
    expect((await bulkCreate(api, bankRows)).skippedCount).toBe(2)
  })

  it('lists twins of the other kind as match candidates and matches by hand from either side', async () => {
    const { api } = await server.newOwner()
    const { account, hand } = await withHandEntered(api)
    const other = await createAccount(api, { name: 'Other' })
    const far = await createTransaction(api, account.id, { date: '2025-03-20', amountCents: -4_250 })
    await createTransaction(api, other.id, {
      date: '2025-03-04',
      amountCents: -4_250,
      importedId: 'elsewhere',
    })
    const bank = await createTransaction(api, account.id, {
      date: '2025-03-09',
      amountCents: -4_250,
      importedId: 'single-1',
    })
    expect(bank).toMatchObject({ source: 'imported', matchedTransactionId: null })

    const forBank = expectStatus(await api.get(`${H}/transactions/${bank.id}/match-candidates`), 200)
    expect(forBank.items.map((t: any) => t.id)).toEqual([hand.id])
    const forHand = expectStatus(await api.get(`${H}/transactions/${hand.id}/match-candidates`), 200)
    expect(forHand.items.map((t: any) => t.id)).toEqual([bank.id])
    expect(expectStatus(await api.get(`${H}/transactions/${far.id}/match-candidates`), 200).items).toEqual([])

    const survivor = expectStatus(
      await api.post(`${H}/transactions/${bank.id}/match`, { candidateId: hand.id }),
      200,
    )
    expect(survivor).toMatchObject({
      id: hand.id,
      date: '2025-03-09',
      status: 'cleared',
      matchedTransactionId: bank.id,
    })
    await expectBalancesExact(api, account.id)
    expectProblem(
      await api.post(`${H}/transactions/${hand.id}/match`, { candidateId: bank.id }),
      404,
      'NOT_FOUND',
    )
    // Naming the folded bank row unmatches the pair too.
    const res = expectStatus(await api.post(`${H}/transactions/${bank.id}/unmatch`), 200)
    expect(res.transactions.map((t: any) => t.id)).toEqual([hand.id, bank.id])
    await expectBalancesExact(api, account.id)
  })

  it('refuses matches that do not qualify with stable codes', async () => {
    const { api } = await server.newOwner()
    const { account, hand } = await withHandEntered(api)
    const foreign = await withHandEntered((await server.newOwner()).api)
    const otherHand = await createTransaction(api, account.id, { date: '2025-03-04', amountCents: -4_250 })
    const bank = await createTransaction(api, account.id, {
      date: '2025-03-04',
      amountCents: -4_250,
      importedId: 'x-1',
    })
    const odd = await createTransaction(api, account.id, {
      date: '2025-03-04',
      amountCents: -1,
      importedId: 'x-2',
    })
    const path = `${H}/transactions/${hand.id}/match`
    expectProblem(await api.post(path, { candidateId: otherHand.id }), 400, 'NOT_A_MATCH_CANDIDATE')
    const amounts = expectProblem(await api.post(path, { candidateId: odd.id }), 400, 'NOT_A_MATCH_CANDIDATE')
    expect(amounts.detail).toMatch(/amounts differ/)
    expectProblem(await api.post(path, {}), 400, 'VALIDATION_FAILED')
    expectProblem(await api.post(path, { candidateId: bank.id, extra: 1 }), 400, 'VALIDATION_FAILED')
    expectProblem(await api.post(path, { candidateId: foreign.hand.id }), 404, 'NOT_FOUND')
    expectProblem(await api.post(path, { candidateId: ulid() }), 404, 'NOT_FOUND')
    expectStatus(await api.post(path, { candidateId: bank.id }), 200)
    expectProblem(
      await api.post(`${H}/transactions/${otherHand.id}/match`, { candidateId: bank.id }),
      404,
      'NOT_FOUND',
    )
    const third = await createTransaction(api, account.id, {
      date: '2025-03-04',
      amountCents: -4_250,
      importedId: 'x-3',
    })
    expectProblem(
      await api.post(`${H}/transactions/${third.id}/match`, { candidateId: hand.id }),
      409,
      'TRANSACTION_ALREADY_MATCHED',
    )
    await expectBalancesExact(api, account.id)
  })

  it('refuses to unmatch a reconciled pair with 409', async () => {
    const { api } = await server.newOwner()
    const { account, hand } = await withHandEntered(api)
    await bulkCreate(api, [
      { accountId: account.id, date: '2025-03-04', amountCents: -4_250, importedId: 'r-1' },
    ])
    expect((await get(api, hand.id)).matchedTransactionId).toEqual(expect.any(String))
    expectStatus(
      await api.post(`${H}/accounts/${account.id}/reconcile`, {
        statementBalanceCents: 95_750,
        statementDate: '2025-03-31',
      }),
      200,
    )
    expectProblem(await api.post(`${H}/transactions/${hand.id}/unmatch`), 409, 'TRANSACTION_RECONCILED')
    await expectBalancesExact(api, account.id)
  })

  it('leaves the possible-duplicate marker when several twins exist, which dismiss-match clears', async () => {
    const { api } = await server.newOwner()
    const { account, hand } = await withHandEntered(api)
    const twin = await createTransaction(api, account.id, { date: '2025-03-06', amountCents: -4_250 })
    const result = await bulkCreate(api, [
      { accountId: account.id, date: '2025-03-05', amountCents: -4_250, importedId: 'amb-1' },
    ])
    expect(result).toMatchObject({ createdCount: 1, matchedCount: 0 })
    const bank = result.items[0]
    expect(bank.possibleDuplicate).toBe(true)
    expect((await get(api, hand.id)).matchedTransactionId).toBeNull()
    expect((await get(api, twin.id)).matchedTransactionId).toBeNull()
    const candidates = expectStatus(await api.get(`${H}/transactions/${bank.id}/match-candidates`), 200)
    expect(candidates.items.map((t: any) => t.id).sort()).toEqual([hand.id, twin.id].sort())

    const dismissed = expectStatus(await api.post(`${H}/transactions/${bank.id}/dismiss-match`), 200)
    expect(dismissed).toMatchObject({ id: bank.id, possibleDuplicate: false })
    expect(expectStatus(await api.post(`${H}/transactions/${bank.id}/dismiss-match`), 200)).toEqual(dismissed)
    expectProblem(await api.post(`${H}/transactions/${ulid()}/dismiss-match`), 404, 'NOT_FOUND')
    await expectBalancesExact(api, account.id)
  })
})
