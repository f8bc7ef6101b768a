import { operations } from '@hearth/engine'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import {
  expectBalancesExact,
  type LedgerHousehold,
  ledgerHousehold,
  newAccount,
  newCategory,
  newTransaction,
  outboxEvents,
} from '../../test-fixture.ts'

function transfer(
  h: LedgerHousehold,
  fromAccountId: string,
  toAccountId: string,
  args: Record<string, unknown> = {},
) {
  return h.run(operations.transactions.transfer, {
    fromAccountId,
    toAccountId,
    amountCents: 2500,
    date: '2024-03-10',
    fromTransactionId: ulid(),
    toTransactionId: ulid(),
    ...args,
  })
}

describe('transactions.transfer', () => {
  it('creates two legs of opposite sign in one transfer group', async () => {
    const h = await ledgerHousehold()
    const checking = await newAccount(h, { openingBalanceCents: 10000 })
    const savings = await newAccount(h, { name: 'Savings' })
    const fromTransactionId = ulid()
    const toTransactionId = ulid()
    const result = await transfer(h, checking.id, savings.id, {
      memo: 'rainy day',
      fromTransactionId,
      toTransactionId,
      status: 'cleared',
    })
    expect(result.transferGroupId).toBe(fromTransactionId)
    expect(result.from).toMatchObject({
      id: fromTransactionId,
      accountId: checking.id,
      amountCents: '-2500',
      transferGroupId: fromTransactionId,
      memo: 'rainy day',
      status: 'cleared',
    })
    expect(result.to).toMatchObject({
      id: toTransactionId,
      amountCents: '2500',
      transferGroupId: fromTransactionId,
    })
    expect((await h.read(operations.accounts.get, { id: savings.id })).balanceCents).toBe('2500')
    expect((await outboxEvents(h)).slice(-2).map((e) => e.type)).toEqual([
      'transaction.created',
      'transaction.created',
    ])
    await expectBalancesExact(h)
  })

  it('refuses one account, two currencies, a closed account and a non-positive amount', async () => {
    const h = await ledgerHousehold({ baseCurrency: 'EUR' })
    const a = await newAccount(h)
    const usd = await newAccount(h, { name: 'USD', currency: 'USD' })
    const closed = await newAccount(h, { name: 'Closed' })
    await h.run(operations.accounts.close, { id: closed.id, adjustmentId: ulid() })
    await expect(transfer(h, a.id, a.id)).rejects.toMatchObject({
      status: 400,
      code: 'TRANSFER_SAME_ACCOUNT',
    })
    await expect(transfer(h, a.id, usd.id)).rejects.toMatchObject({
      status: 400,
      code: 'TRANSFER_CURRENCY_MISMATCH',
    })
    await expect(transfer(h, a.id, closed.id)).rejects.toMatchObject({ status: 409, code: 'ACCOUNT_CLOSED' })
    await expect(transfer(h, a.id, ulid())).rejects.toMatchObject({
      status: 404,
      errors: [{ path: 'toAccountId' }],
    })
    await expect(transfer(h, a.id, usd.id, { amountCents: 0 })).rejects.toMatchObject({ status: 400 })
    await expectBalancesExact(h)
  })
})

describe('transfer candidates, link and unlink', () => {
  it('lists exact opposite amounts on other same-currency accounts within 7 days, nearest first', async () => {
    const h = await ledgerHousehold({ baseCurrency: 'EUR' })
    const a = await newAccount(h)
    const b = await newAccount(h, { name: 'B' })
    const usd = await newAccount(h, { name: 'USD', currency: 'USD' })
    const row = await newTransaction(h, a.id, { amountCents: -4000, date: '2024-03-10' })
    const near = await newTransaction(h, b.id, { amountCents: 4000, date: '2024-03-11' })
    const edge = await newTransaction(h, b.id, { amountCents: 4000, date: '2024-03-03' })
    await newTransaction(h, b.id, { amountCents: 4000, date: '2024-03-18' })
    await newTransaction(h, b.id, { amountCents: -4000, date: '2024-03-10' })
    await newTransaction(h, a.id, { amountCents: 4000, date: '2024-03-10' })
    await newTransaction(h, usd.id, { amountCents: 4000, date: '2024-03-10' })
    const c = await newAccount(h, { name: 'C' })
    const linked = await transfer(h, c.id, b.id, { amountCents: 4000 })
    expect(linked.to.amountCents).toBe('4000')
    const { items } = await h.read(operations.transactions.transferCandidates, { id: row.id })
    expect(items.map((t) => t.id)).toEqual([near.id, edge.id])
  })

  it('links two rows into one transfer and unlinks them keeping payee and category', async () => {
    const h = await ledgerHousehold()
    const a = await newAccount(h)
    const b = await newAccount(h, { name: 'B' })
    const category = await newCategory(h)
    const out = await newTransaction(h, a.id, { amountCents: -700, payeeName: 'Me', categoryId: category })
    const into = await newTransaction(h, b.id, { amountCents: 700 })
    const linked = await h.run(operations.transactions.linkTransfer, { id: out.id, counterpartId: into.id })
    expect(linked.transferGroupId).toBe(out.id)
    expect(linked.transactions.map((t) => t.transferGroupId)).toEqual([out.id, out.id])
    await expect(
      h.run(operations.transactions.linkTransfer, { id: into.id, counterpartId: out.id }),
    ).rejects.toMatchObject({
      status: 409,
      code: 'TRANSFER_ALREADY_LINKED',
    })
    const { transactions } = await h.run(operations.transactions.unlinkTransfer, { id: into.id })
    expect(transactions.map((t) => t.transferGroupId)).toEqual([null, null])
    const after = await h.read(operations.transactions.get, { id: out.id })
    expect(after).toMatchObject({ payeeId: out.payeeId, categoryId: category, transferGroupId: null })
    await expect(h.run(operations.transactions.unlinkTransfer, { id: out.id })).rejects.toMatchObject({
      status: 409,
      code: 'NOT_A_TRANSFER',
    })
  })

  it('refuses to link rows that are not counterparts', async () => {
    const h = await ledgerHousehold()
    const a = await newAccount(h)
    const b = await newAccount(h, { name: 'B' })
    const out = await newTransaction(h, a.id, { amountCents: -700 })
    const wrongAmount = await newTransaction(h, b.id, { amountCents: 701 })
    const sameAccount = await newTransaction(h, a.id, { amountCents: 700 })
    for (const counterpartId of [wrongAmount.id, sameAccount.id, out.id]) {
      await expect(
        h.run(operations.transactions.linkTransfer, { id: out.id, counterpartId }),
      ).rejects.toMatchObject({
        status: 400,
        code: 'NOT_A_TRANSFER_COUNTERPART',
      })
    }
    await expect(
      h.run(operations.transactions.linkTransfer, { id: out.id, counterpartId: ulid() }),
    ).rejects.toMatchObject({
      status: 404,
    })
  })

  it('refuses to unlink while a leg is reconciled', async () => {
    const h = await ledgerHousehold()
    const a = await newAccount(h)
    const b = await newAccount(h, { name: 'B' })
    const { from } = await transfer(h, a.id, b.id, { status: 'cleared', date: '2024-03-01' })
    await h.run(operations.accounts.reconcile, {
      id: b.id,
      statementBalanceCents: 2500,
      statementDate: '2024-03-31',
      adjustmentId: ulid(),
    })
    await expect(h.run(operations.transactions.unlinkTransfer, { id: from.id })).rejects.toMatchObject({
      status: 409,
      code: 'TRANSACTION_RECONCILED',
    })
    await expect(h.run(operations.transactions.delete, { id: from.id })).rejects.toMatchObject({
      status: 409,
      code: 'TRANSACTION_RECONCILED',
    })
    await expect(
      h.run(operations.transactions.update, { id: from.id, amountCents: -1 }),
    ).rejects.toMatchObject({
      status: 409,
      code: 'TRANSACTION_RECONCILED',
    })
    await expectBalancesExact(h)
  })
})
