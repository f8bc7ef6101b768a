import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { createCategory, createGroup, expectProblem, expectStatus, H } from './catalog-fixture.ts'
import {
  bulkCreate,
  createAccount,
  createTransaction,
  expectBalancesExact,
  listAll,
} from './ledger-fixture.ts'

const server = useTestServer()

/**
 * The ledger issue's acceptance walk, end to end as an outside client sees it, with the
 * balances checked against the listed rows after every step.
 */
describe('the ledger walked end to end over HTTP', () => {
  it('keeps every balance exact through accounts, transfers, imports, reconcile, close and delete', async () => {
    const { api } = await server.newOwner()
    const exact = async (...ids: string[]) => {
      for (const id of ids) await expectBalancesExact(api, id)
    }

    // Accounts with opening balances; transactions with splits, tags and flags.
    const checking = await createAccount(api, {
      name: 'Checking',
      openingBalanceCents: 250_000,
      openingBalanceDate: '2025-01-01',
    })
    const savings = await createAccount(api, {
      name: 'Savings',
      openingBalanceCents: '1000000',
      openingBalanceDate: '2025-01-01',
    })
    const euros = await createAccount(api, {
      name: 'Euro card',
      type: 'credit',
      currency: 'EUR',
      openingBalanceCents: -5_000,
      openingBalanceDate: '2025-01-01',
    })
    const group = await createGroup(api, 'Living')
    const food = await createCategory(api, group.id, 'Food')
    const home = await createCategory(api, group.id, 'Home')
    const tag = expectStatus(await api.post(`${H}/tags`, { name: 'Holiday' }), 201)
    const [flag] = expectStatus(await api.get(`${H}/flags`), 200).items
    const shop = await createTransaction(api, checking.id, {
      date: '2025-02-03',
      amountCents: -8_000,
      payeeName: 'Superstore',
      splits: [
        { amountCents: -5_000, categoryId: food.id },
        { amountCents: -3_000, categoryId: home.id, memo: 'bulbs' },
      ],
      tagIds: [tag.id],
      flagIds: [flag.id],
      status: 'cleared',
    })
    expect(shop.splits).toHaveLength(2)
    await createTransaction(api, euros.id, { date: '2025-02-04', amountCents: -1_250, categoryId: food.id })
    await exact(checking.id, savings.id, euros.id)
    expectProblem(
      await api.post(`${H}/transactions`, {
        accountId: checking.id,
        date: '2025-02-03',
        amountCents: -100,
        splits: [{ amountCents: -60 }, { amountCents: -50 }],
      }),
      400,
      'SPLIT_SUM_MISMATCH',
    )

    // Transfer, then link and unlink two rows entered separately.
    const moved = expectStatus(
      await api.post(`${H}/transactions/transfer`, {
        fromAccountId: savings.id,
        toAccountId: checking.id,
        amountCents: 20_000,
        date: '2025-02-05',
        status: 'cleared',
      }),
      201,
    )
    expect(moved.from.transferGroupId).toBe(moved.to.transferGroupId)
    const out = await createTransaction(api, checking.id, {
      date: '2025-02-06',
      amountCents: -3_000,
      status: 'cleared',
    })
    const into = await createTransaction(api, savings.id, { date: '2025-02-07', amountCents: 3_000 })
    const candidates = expectStatus(await api.get(`${H}/transactions/${out.id}/transfer-candidates`), 200)
    expect(candidates.items.map((t: any) => t.id)).toEqual([into.id])
    expectStatus(await api.post(`${H}/transactions/${out.id}/link-transfer`, { counterpartId: into.id }), 200)
    expectStatus(await api.post(`${H}/transactions/${into.id}/unlink-transfer`), 200)
    expectStatus(await api.post(`${H}/transactions/${out.id}/link-transfer`, { counterpartId: into.id }), 200)
    await exact(checking.id, savings.id)

    // A bank import: one row meets its hand-entered twin, the rest arrive; re-importing adds nothing.
    const coffee = await createTransaction(api, checking.id, {
      date: '2025-02-10',
      amountCents: -450,
      memo: 'coffee',
    })
    const statement = [
      { accountId: checking.id, date: '2025-02-11', amountCents: -450, importedId: 'feb-1' },
      {
        accountId: checking.id,
        date: '2025-02-12',
        amountCents: -9_999,
        importedId: 'feb-2',
        payeeName: 'Utility',
      },
      {
        accountId: checking.id,
        date: '2025-02-13',
        amountCents: 300_000,
        importedId: 'feb-3',
        payeeName: 'Employer',
      },
    ]
    const imported = await bulkCreate(api, statement)
    expect(imported).toMatchObject({ createdCount: 3, matchedCount: 1, skippedCount: 0 })
    await exact(checking.id)
    expect((await bulkCreate(api, statement)).skippedCount).toBe(3)
    const unmatched = expectStatus(await api.post(`${H}/transactions/${coffee.id}/unmatch`), 200)
    expect(unmatched.transactions[0]).toMatchObject({ date: '2025-02-10', status: 'pending' })
    await exact(checking.id)
    expectStatus(
      await api.post(`${H}/transactions/${coffee.id}/match`, {
        candidateId: imported.matched[0].transactionId,
      }),
      200,
    )
    await exact(checking.id)

    // Reconcile, then try to edit a reconciled row.
    const before = expectStatus(await api.get(`${H}/accounts/${checking.id}`), 200)
    const reconciled = expectStatus(
      await api.post(`${H}/accounts/${checking.id}/reconcile`, {
        statementBalanceCents: Number(before.clearedBalanceCents) - 1,
        statementDate: '2025-02-28',
      }),
      200,
    )
    expect(reconciled.adjustment).toMatchObject({ amountCents: '-1', kind: 'adjustment' })
    expectProblem(
      await api.patch(`${H}/transactions/${shop.id}`, { amountCents: -8_001 }),
      409,
      'TRANSACTION_RECONCILED',
    )
    expectProblem(
      await api.post(`${H}/transactions/${out.id}/unlink-transfer`),
      409,
      'TRANSACTION_RECONCILED',
    )
    await exact(checking.id, savings.id)

    // Paging with a filter sees each reconciled row once.
    const locked = await listAll(api, `accountId=${checking.id}&status=reconciled`, 2)
    expect(new Set(locked.map((t) => t.id)).size).toBe(locked.length)
    expect(locked.length).toBe(reconciled.reconciledCount)

    // The daily summary in two currencies, before and after a rate.
    const window = `${H}/transactions/daily-summary?fromDate=2025-02-01&toDate=2025-02-28`
    expect(expectStatus(await api.get(window), 200).unconvertedCurrencies).toEqual(['EUR'])
    expectStatus(await api.put(`${H}/exchange-rates/EUR/USD`, { rate: '1.08' }), 200)
    const summary = expectStatus(await api.get(window), 200)
    expect(summary.unconvertedCurrencies).toEqual([])
    expect(summary.byCurrency.map((c: any) => c.currency)).toEqual(['EUR', 'USD'])
    const feb4 = summary.days.find((d: any) => d.date === '2025-02-04')
    expect(feb4).toMatchObject({ moneyOutCents: '1350', count: 1 })

    // Close, reopen and delete.
    const closed = expectStatus(await api.post(`${H}/accounts/${euros.id}/close`), 200)
    expect(closed.account.balanceCents).toBe('0')
    await exact(euros.id)
    expectStatus(await api.post(`${H}/accounts/${euros.id}/reopen`), 200)
    await createTransaction(api, euros.id, { date: '2025-03-01', amountCents: -500 })
    expectProblem(await api.delete(`${H}/accounts/${euros.id}`), 409, 'ACCOUNT_BALANCE_NOT_ZERO')
    expectProblem(
      await api.post(`${H}/accounts/${euros.id}/convert`, { type: 'loan' }),
      422,
      'ACCOUNT_CONVERSION_NOT_ALLOWED',
    )
    expect((await api.delete(`${H}/accounts/${euros.id}?force=true`)).status).toBe(204)
    const accounts = expectStatus(await api.get(`${H}/accounts`), 200).items
    expect(accounts.map((a: any) => a.name)).toEqual(['Checking', 'Savings'])
    await exact(checking.id, savings.id)
  })
})
