import { operations } from '@hearth/engine'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import {
  expectBalancesExact,
  ledgerHousehold,
  newAccount,
  newCategory,
  newFlag,
  newPayee,
  newTag,
  newTransaction,
} from '../../test-fixture.ts'

describe('transactions.bulkUpdate', () => {
  it('applies one patch to every listed row and returns the count', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const category = await newCategory(h)
    const payee = await newPayee(h, 'Grocer')
    const [keep, drop, add] = [await newTag(h, 'keep'), await newTag(h, 'drop'), await newTag(h, 'add')]
    const [f1, f2] = [await newFlag(h, 'one'), await newFlag(h, 'two')]
    const rows = [
      await newTransaction(h, account.id, { tagIds: [keep, drop], flagIds: [f1] }),
      await newTransaction(h, account.id, { tagIds: [drop] }),
      await newTransaction(h, account.id),
    ]
    const untouched = await newTransaction(h, account.id)
    const ids = rows.map((r) => r.id)
    const result = await h.run(operations.transactions.bulkUpdate, {
      ids,
      patch: {
        categoryId: category,
        status: 'cleared',
        memo: 'sorted',
        payeeId: payee,
        flagIds: [f2],
        addTagIds: [add],
        removeTagIds: [drop],
      },
    })
    expect(result).toEqual({ count: 3 })
    const after = await Promise.all(ids.map((id) => h.read(operations.transactions.get, { id })))
    for (const t of after) {
      expect(t).toMatchObject({
        categoryId: category,
        status: 'cleared',
        memo: 'sorted',
        payeeId: payee,
        flagIds: [f2],
      })
      expect(t.tagIds).toContain(add)
      expect(t.tagIds).not.toContain(drop)
    }
    expect(after[0]!.tagIds.sort()).toEqual([keep, add].sort())
    expect((await h.read(operations.transactions.get, { id: untouched.id })).status).toBe('pending')
    expect((await h.read(operations.accounts.get, { id: account.id })).clearedBalanceCents).toBe('-3000')
    await expectBalancesExact(h)
  })

  it('is atomic and names the index of the row it refuses', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const plain = await newTransaction(h, account.id, { status: 'cleared', date: '2024-03-01' })
    await h.run(operations.accounts.reconcile, {
      id: account.id,
      statementBalanceCents: -1000,
      statementDate: '2024-03-01',
      adjustmentId: ulid(),
    })
    const open = await newTransaction(h, account.id, { date: '2024-03-05' })
    const split = await newTransaction(h, account.id, {
      splits: [{ amountCents: -500 }, { amountCents: -500 }],
    })
    await expect(
      h.run(operations.transactions.bulkUpdate, {
        ids: [open.id, plain.id],
        patch: { status: 'pending' },
      }),
    ).rejects.toMatchObject({ status: 409, code: 'TRANSACTION_RECONCILED', extra: { index: 1 } })
    await expect(
      h.run(operations.transactions.bulkUpdate, { ids: [open.id], patch: { status: 'reconciled' } }),
    ).rejects.toMatchObject({ status: 400, code: 'STATUS_NOT_ALLOWED' })
    await expect(
      h.run(operations.transactions.bulkUpdate, { ids: [open.id, ulid()], patch: { memo: 'x' } }),
    ).rejects.toMatchObject({ status: 404, errors: [{ path: 'ids.1' }] })
    const category = await newCategory(h)
    await expect(
      h.run(operations.transactions.bulkUpdate, {
        ids: [open.id, split.id],
        patch: { categoryId: category },
      }),
    ).rejects.toMatchObject({ status: 400, code: 'SPLIT_CATEGORY_CONFLICT', extra: { index: 1 } })
    expect((await h.read(operations.transactions.get, { id: open.id })).categoryId).toBeNull()
    // Memo and category are free on reconciled rows; cleared unlocks them.
    const ok = await h.run(operations.transactions.bulkUpdate, {
      ids: [plain.id, open.id],
      patch: { memo: 'fine', status: 'cleared' },
    })
    expect(ok.count).toBe(2)
    expect((await h.read(operations.transactions.get, { id: plain.id })).status).toBe('cleared')
    await expectBalancesExact(h)
  })

  it('refuses an empty patch, repeated ids and more than 500 ids with 400', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const row = await newTransaction(h, account.id)
    for (const args of [
      { ids: [row.id], patch: {} },
      { ids: [row.id, row.id], patch: { memo: 'x' } },
      { ids: Array.from({ length: 501 }, () => ulid()), patch: { memo: 'x' } },
      { ids: [], patch: { memo: 'x' } },
    ]) {
      await expect(h.run(operations.transactions.bulkUpdate, args)).rejects.toMatchObject({
        status: 400,
        code: 'VALIDATION_FAILED',
      })
    }
  })
})
