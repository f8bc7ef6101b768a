import { operations } from '@hearth/engine'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import {
  expectBalancesExact,
  ledgerHousehold,
  newAccount,
  newCategory,
  newFlag,
  newTag,
  newTransaction,
  outboxEvents,
} from '../../test-fixture.ts'

describe('transactions.create', () => {
  it('creates a row with splits, tags and flags that a read returns, and books it', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h, { openingBalanceCents: 10000 })
    const food = await newCategory(h, 'Food')
    const home = await newCategory(h, 'Home')
    const tagB = await newTag(h, 'b')
    const tagA = await newTag(h, 'a')
    const flag = await newFlag(h, 'Check')
    const created = await newTransaction(h, account.id, {
      amountCents: '-1250',
      memo: '  weekly shop ',
      splits: [
        { amountCents: -1000, categoryId: food, memo: 'food' },
        { amountCents: '-250', categoryId: home },
      ],
      tagIds: [tagB, tagA],
      flagIds: [flag],
    })
    expect(created).toMatchObject({
      amountCents: '-1250',
      memo: 'weekly shop',
      status: 'pending',
      source: 'manual',
      kind: 'normal',
      categoryId: null,
      splits: [
        { amountCents: '-1000', categoryId: food, memo: 'food', payeeId: null },
        { amountCents: '-250', categoryId: home, memo: null },
      ],
      tagIds: [tagA, tagB].sort(),
      flagIds: [flag],
    })
    expect(await h.read(operations.transactions.get, { id: created.id })).toEqual(created)
    expect(await h.read(operations.accounts.get, { id: account.id })).toMatchObject({
      balanceCents: '8750',
      clearedBalanceCents: '10000',
    })
    expect((await outboxEvents(h)).at(-1)).toMatchObject({
      type: 'transaction.created',
      data: { transaction: { id: created.id, amountCents: '-1250' } },
    })
    await expectBalancesExact(h)
  })

  it('finds or creates the payee named by payeeName, matching names case- and accent-insensitively', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const first = await newTransaction(h, account.id, { payeeName: 'Café Rouge' })
    const second = await newTransaction(h, account.id, { payeeName: 'CAFE ROUGE' })
    expect(first.payeeId).toBeTruthy()
    expect(second.payeeId).toBe(first.payeeId)
    const created = (await outboxEvents(h)).filter((e) => e.type === 'payee.created')
    expect(created).toHaveLength(1)
  })

  it('refuses splits that do not sum to the amount with 400 SPLIT_SUM_MISMATCH', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    await expect(
      newTransaction(h, account.id, {
        amountCents: -1000,
        splits: [{ amountCents: -600 }, { amountCents: -300 }],
      }),
    ).rejects.toMatchObject({ status: 400, code: 'SPLIT_SUM_MISMATCH', errors: [{ path: 'splits' }] })
    const category = await newCategory(h)
    await expect(
      newTransaction(h, account.id, {
        amountCents: -1000,
        categoryId: category,
        splits: [{ amountCents: -600 }, { amountCents: -400 }],
      }),
    ).rejects.toMatchObject({ status: 400, code: 'SPLIT_CATEGORY_CONFLICT' })
    await expect(newTransaction(h, account.id, { splits: [{ amountCents: -1000 }] })).rejects.toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
    })
    await expectBalancesExact(h)
  })

  it('answers 404 naming the field for unknown, deleted or foreign references', async () => {
    const h = await ledgerHousehold()
    const other = await ledgerHousehold()
    const account = await newAccount(h)
    const foreignTag = await newTag(other, 'theirs')
    const deleted = await newCategory(h, 'Old')
    await h.run(operations.categories.delete, { id: deleted })
    await expect(newTransaction(h, account.id, { categoryId: deleted })).rejects.toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
      errors: [{ path: 'categoryId' }],
    })
    await expect(newTransaction(h, account.id, { tagIds: [foreignTag] })).rejects.toMatchObject({
      status: 404,
      errors: [{ path: 'tagIds.0' }],
    })
    await expect(newTransaction(h, ulid())).rejects.toMatchObject({
      status: 404,
      errors: [{ path: 'accountId' }],
    })
    await expect(
      newTransaction(h, account.id, {
        splits: [{ amountCents: -500 }, { amountCents: -500, payeeId: ulid() }],
      }),
    ).rejects.toMatchObject({ status: 404, errors: [{ path: 'splits.1.payeeId' }] })
  })

  it('refuses bad input: payeeId with payeeName, a reconciled status, a taken id', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const row = await newTransaction(h, account.id)
    await expect(newTransaction(h, account.id, { payeeId: row.id, payeeName: 'Shop' })).rejects.toMatchObject(
      { status: 400, code: 'VALIDATION_FAILED' },
    )
    await expect(newTransaction(h, account.id, { status: 'reconciled' })).rejects.toMatchObject({
      status: 400,
    })
    await expect(newTransaction(h, account.id, { id: row.id })).rejects.toMatchObject({
      status: 409,
      code: 'ID_ALREADY_EXISTS',
    })
  })

  it('makes an imported row cleared, marks the account bank-fed, and refuses a repeated importedId', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const row = await newTransaction(h, account.id, { importedId: 'bank-1' })
    expect(row).toMatchObject({ source: 'imported', status: 'cleared', importedId: 'bank-1' })
    expect((await h.read(operations.accounts.get, { id: account.id })).bankFed).toBe(true)
    await expect(newTransaction(h, account.id, { importedId: 'bank-1' })).rejects.toMatchObject({
      status: 409,
      code: 'DUPLICATE_IMPORTED_ID',
    })
    const other = await newAccount(h, { name: 'Other' })
    await expect(newTransaction(h, other.id, { importedId: 'bank-1' })).resolves.toMatchObject({
      importedId: 'bank-1',
    })
  })
})
