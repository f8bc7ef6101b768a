import { operations } from '@hearth/engine'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import {
  expectBalancesExact,
  type LedgerHousehold,
  ledgerHousehold,
  newAccount,
  newCategory,
  newTag,
  newTransaction,
} from '../../test-fixture.ts'

function row(accountId: string, args: Record<string, unknown> = {}) {
  return { id: ulid(), accountId, date: '2024-03-10', amountCents: -1000, ...args }
}

function bulk(h: LedgerHousehold, transactions: unknown[]) {
  return h.run(operations.transactions.bulkCreate, { transactions })
}

async function liveCount(h: LedgerHousehold): Promise<number> {
  const { items } = await h.read(operations.transactions.list, { limit: 100 })
  return items.length
}

describe('transactions.bulkCreate', () => {
  it('creates every row with its splits and tags and books them', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const category = await newCategory(h)
    const tag = await newTag(h, 'trip')
    const result = await bulk(h, [
      row(account.id, { amountCents: 50000, status: 'cleared' }),
      row(account.id, {
        splits: [{ amountCents: -400, categoryId: category }, { amountCents: -600 }],
        tagIds: [tag],
      }),
      row(account.id, { payeeName: 'Bakery', categoryId: category }),
    ])
    expect(result).toMatchObject({ createdCount: 3, skippedCount: 0, matchedCount: 0 })
    expect(result.items.map((t) => t.amountCents)).toEqual(['50000', '-1000', '-1000'])
    expect(result.items[1]).toMatchObject({
      tagIds: [tag],
      splits: [{ amountCents: '-400' }, { amountCents: '-600' }],
    })
    expect((await h.read(operations.accounts.get, { id: account.id })).balanceCents).toBe('48000')
    await expectBalancesExact(h)
  })

  it('rejects the whole request when one row is bad, naming its index', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    await expect(
      bulk(h, [row(account.id), row(account.id), row(account.id, { categoryId: ulid() })]),
    ).rejects.toMatchObject({
      status: 404,
      errors: [{ path: 'transactions.2.categoryId' }],
      extra: { index: 2 },
    })
    await expect(
      bulk(h, [row(account.id), row(account.id, { splits: [{ amountCents: -1 }, { amountCents: -2 }] })]),
    ).rejects.toMatchObject({ status: 400, code: 'SPLIT_SUM_MISMATCH', extra: { index: 1 } })
    await expect(bulk(h, [row(account.id), row(account.id, { date: '2024-02-30' })])).rejects.toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      errors: [{ path: 'transactions.1.date' }],
    })
    const twice = row(account.id)
    await expect(bulk(h, [twice, { ...twice }])).rejects.toMatchObject({ status: 400, code: 'DUPLICATE_ID' })
    expect(await liveCount(h)).toBe(0)
    await expectBalancesExact(h)
  })

  it('takes 500 rows and refuses 501 with 400', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const rows = Array.from({ length: 500 }, (_, i) =>
      row(account.id, { amountCents: -(i + 1), payeeName: `Shop ${i % 40}` }),
    )
    const result = await bulk(h, rows)
    expect(result.createdCount).toBe(500)
    expect((await h.read(operations.accounts.get, { id: account.id })).balanceCents).toBe(
      String(-(500 * 501) / 2),
    )
    await expect(
      bulk(
        h,
        [...rows, row(account.id)].map((r) => ({ ...r, id: ulid() })),
      ),
    ).rejects.toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
    })
    await expectBalancesExact(h)
  })

  it('skips rows whose importedId the account already holds, so re-importing never duplicates', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const other = await newAccount(h, { name: 'Other' })
    const bank = (importedId: string, accountId = account.id) =>
      row(accountId, { importedId, amountCents: -700 })
    const first = await bulk(h, [bank('b1'), bank('b2'), bank('b2'), bank('b3')])
    expect(first).toMatchObject({
      createdCount: 3,
      skippedCount: 1,
      skipped: [{ index: 2, importedId: 'b2' }],
    })
    await h.run(operations.transactions.delete, { id: first.items[2]!.id })
    const again = await bulk(h, [bank('b1'), bank('b2'), bank('b3'), bank('b4'), bank('b1', other.id)])
    expect(again).toMatchObject({ createdCount: 2, skippedCount: 3 })
    expect(again.skipped.map((s) => s.index)).toEqual([0, 1, 2])
    expect(await liveCount(h)).toBe(4)
    expect((await h.read(operations.accounts.get, { id: account.id })).bankFed).toBe(true)
    await expectBalancesExact(h)
  })

  it('matches an imported row with its one hand-entered twin, and marks an ambiguous one', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const hand = await newTransaction(h, account.id, {
      amountCents: -4200,
      date: '2024-03-08',
      memo: 'dinner',
    })
    await newTransaction(h, account.id, { amountCents: -1500, date: '2024-03-01' })
    await newTransaction(h, account.id, { amountCents: -1500, date: '2024-03-03' })
    const result = await bulk(h, [
      row(account.id, { importedId: 'x1', amountCents: -4200, date: '2024-03-10' }),
      row(account.id, { importedId: 'x2', amountCents: -1500, date: '2024-03-02' }),
      row(account.id, { importedId: 'x3', amountCents: -4200, date: '2024-03-30' }),
    ])
    expect(result).toMatchObject({ createdCount: 3, matchedCount: 1 })
    expect(result.matched).toEqual([
      { index: 0, transactionId: expect.any(String), matchedTransactionId: hand.id },
    ])
    expect(result.items.map((t) => [t.importedId, t.possibleDuplicate])).toEqual([
      ['x2', true],
      ['x3', false],
    ])
    const survivor = await h.read(operations.transactions.get, { id: hand.id })
    expect(survivor).toMatchObject({
      date: '2024-03-10',
      status: 'cleared',
      memo: 'dinner',
      matchedTransactionId: result.matched[0]!.transactionId,
    })
    expect(await liveCount(h)).toBe(5)
    expect((await h.read(operations.accounts.get, { id: account.id })).balanceCents).toBe(
      String(-4200 - 3000 - 1500 - 4200),
    )
    await expectBalancesExact(h)
  })
})
