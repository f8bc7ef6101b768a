import { operations } from '@hearth/engine'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import {
  expectBalancesExact,
  type LedgerHousehold,
  ledgerHousehold,
  newAccount,
  newCategory,
  newFlag,
  newTag,
  newTransaction,
} from '../../test-fixture.ts'

async function reconciledRow(h: LedgerHousehold) {
  const account = await newAccount(h)
  const row = await newTransaction(h, account.id, {
    amountCents: -500,
    status: 'cleared',
    date: '2024-03-01',
  })
  await h.run(operations.accounts.reconcile, {
    id: account.id,
    statementBalanceCents: -500,
    statementDate: '2024-03-31',
    adjustmentId: ulid(),
  })
  return { account, row }
}

describe('transactions.update', () => {
  it('replaces splits, tags and flags when supplied and leaves them otherwise', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const a = await newCategory(h, 'A')
    const b = await newCategory(h, 'B')
    const [t1, t2] = [await newTag(h, 't1'), await newTag(h, 't2')]
    const flag = await newFlag(h, 'f')
    const row = await newTransaction(h, account.id, {
      amountCents: -900,
      splits: [
        { amountCents: -400, categoryId: a },
        { amountCents: -500, categoryId: b },
      ],
      tagIds: [t1],
      flagIds: [flag],
    })
    const memoOnly = await h.run(operations.transactions.update, { id: row.id, memo: 'note' })
    expect(memoOnly).toMatchObject({ memo: 'note', tagIds: [t1], flagIds: [flag] })
    expect(memoOnly.splits).toHaveLength(2)
    const replaced = await h.run(operations.transactions.update, {
      id: row.id,
      amountCents: -1000,
      splits: [
        { amountCents: -100, categoryId: b },
        { amountCents: -900, categoryId: a },
      ],
      tagIds: [t2],
      flagIds: [],
    })
    expect(replaced).toMatchObject({ amountCents: '-1000', tagIds: [t2], flagIds: [] })
    expect(replaced.splits.map((s) => [s.amountCents, s.categoryId])).toEqual([
      ['-100', b],
      ['-900', a],
    ])
    const plain = await h.run(operations.transactions.update, { id: row.id, splits: [], categoryId: a })
    expect(plain).toMatchObject({ splits: [], categoryId: a })
    await expectBalancesExact(h)
  })

  it('refuses an amount that no longer matches the existing splits', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const row = await newTransaction(h, account.id, {
      amountCents: -900,
      splits: [{ amountCents: -400 }, { amountCents: -500 }],
    })
    await expect(
      h.run(operations.transactions.update, { id: row.id, amountCents: -1000 }),
    ).rejects.toMatchObject({
      status: 400,
      code: 'SPLIT_SUM_MISMATCH',
    })
    const category = await newCategory(h)
    await expect(
      h.run(operations.transactions.update, { id: row.id, categoryId: category }),
    ).rejects.toMatchObject({
      status: 400,
      code: 'SPLIT_CATEGORY_CONFLICT',
    })
  })

  it('moves a row between accounts and keeps both balances exact', async () => {
    const h = await ledgerHousehold()
    const a = await newAccount(h, { openingBalanceCents: 1000 })
    const b = await newAccount(h, { name: 'B' })
    const row = await newTransaction(h, a.id, { amountCents: -300, status: 'cleared' })
    await h.run(operations.transactions.update, { id: row.id, accountId: b.id, status: 'pending' })
    expect((await h.read(operations.accounts.get, { id: a.id })).balanceCents).toBe('1000')
    expect(await h.read(operations.accounts.get, { id: b.id })).toMatchObject({
      balanceCents: '-300',
      clearedBalanceCents: '0',
    })
    await expectBalancesExact(h)
  })

  it('locks amount, date, account and splits of a reconciled row with 409 TRANSACTION_RECONCILED', async () => {
    const h = await ledgerHousehold()
    const { row } = await reconciledRow(h)
    const other = await newAccount(h, { name: 'Other' })
    for (const patch of [
      { amountCents: -600 },
      { date: '2024-03-02' },
      { accountId: other.id },
      { splits: [{ amountCents: -200 }, { amountCents: -300 }] },
      { status: 'pending' },
    ]) {
      await expect(h.run(operations.transactions.update, { id: row.id, ...patch })).rejects.toMatchObject({
        status: 409,
        code: 'TRANSACTION_RECONCILED',
      })
    }
    await expect(h.run(operations.transactions.delete, { id: row.id })).rejects.toMatchObject({
      status: 409,
      code: 'TRANSACTION_RECONCILED',
    })
    const category = await newCategory(h)
    const edited = await h.run(operations.transactions.update, {
      id: row.id,
      memo: 'still fine',
      categoryId: category,
      amountCents: -500,
      status: 'reconciled',
    })
    expect(edited).toMatchObject({ memo: 'still fine', categoryId: category, status: 'reconciled' })
  })

  it('unlocks a reconciled row only by setting its status back to cleared', async () => {
    const h = await ledgerHousehold()
    const { row } = await reconciledRow(h)
    const unlocked = await h.run(operations.transactions.update, {
      id: row.id,
      status: 'cleared',
      amountCents: -450,
    })
    expect(unlocked).toMatchObject({ status: 'cleared', amountCents: '-450' })
    await expect(
      h.run(operations.transactions.update, { id: row.id, status: 'reconciled' }),
    ).rejects.toMatchObject({
      status: 400,
      code: 'STATUS_NOT_ALLOWED',
    })
    await expectBalancesExact(h)
  })

  it('makes the other leg of a transfer follow an amount change', async () => {
    const h = await ledgerHousehold()
    const a = await newAccount(h)
    const b = await newAccount(h, { name: 'B' })
    const { from, to } = await h.run(operations.transactions.transfer, {
      fromAccountId: a.id,
      toAccountId: b.id,
      amountCents: 1000,
      date: '2024-03-01',
      fromTransactionId: ulid(),
      toTransactionId: ulid(),
    })
    await h.run(operations.transactions.update, { id: to.id, amountCents: 1500 })
    expect((await h.read(operations.transactions.get, { id: from.id })).amountCents).toBe('-1500')
    await expect(h.run(operations.transactions.update, { id: to.id, accountId: a.id })).rejects.toMatchObject(
      {
        status: 400,
        code: 'TRANSFER_SAME_ACCOUNT',
      },
    )
    await expectBalancesExact(h)
  })

  it('answers 404 for a deleted row', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const row = await newTransaction(h, account.id)
    await h.run(operations.transactions.delete, { id: row.id })
    await expect(h.run(operations.transactions.update, { id: row.id, memo: 'x' })).rejects.toMatchObject({
      status: 404,
    })
  })
})

describe('transactions.delete and transactions.removeTag', () => {
  it('soft-deletes a row, takes it off the balance and announces it', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h, { openingBalanceCents: 1000 })
    const row = await newTransaction(h, account.id, { amountCents: -400 })
    await h.run(operations.transactions.delete, { id: row.id })
    await expect(h.read(operations.transactions.get, { id: row.id })).rejects.toMatchObject({ status: 404 })
    expect((await h.read(operations.accounts.get, { id: account.id })).balanceCents).toBe('1000')
    const stored = await h.store.db
      .selectFrom('transactions')
      .select('deleted_at')
      .where('id', '=', row.id)
      .executeTakeFirst()
    expect(stored?.deleted_at).toEqual(h.ctx.now)
    await expectBalancesExact(h)
  })

  it('deletes both legs of a transfer', async () => {
    const h = await ledgerHousehold()
    const a = await newAccount(h)
    const b = await newAccount(h, { name: 'B' })
    const { from, to } = await h.run(operations.transactions.transfer, {
      fromAccountId: a.id,
      toAccountId: b.id,
      amountCents: 1000,
      date: '2024-03-01',
      fromTransactionId: ulid(),
      toTransactionId: ulid(),
    })
    await h.run(operations.transactions.delete, { id: from.id })
    await expect(h.read(operations.transactions.get, { id: to.id })).rejects.toMatchObject({ status: 404 })
    await expectBalancesExact(h)
  })

  it('removes one tag, harmlessly twice, and 404s for an unknown tag', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const [t1, t2] = [await newTag(h, 'one'), await newTag(h, 'two')]
    const row = await newTransaction(h, account.id, { tagIds: [t1, t2] })
    await h.run(operations.transactions.removeTag, { id: row.id, tagId: t1 })
    await h.run(operations.transactions.removeTag, { id: row.id, tagId: t1 })
    expect((await h.read(operations.transactions.get, { id: row.id })).tagIds).toEqual([t2])
    await expect(
      h.run(operations.transactions.removeTag, { id: row.id, tagId: ulid() }),
    ).rejects.toMatchObject({
      status: 404,
    })
  })
})
