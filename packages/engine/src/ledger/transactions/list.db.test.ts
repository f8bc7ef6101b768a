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
} from '../test-fixture.ts'

/** A household with one row of each kind the filters tell apart, keyed by a short name. */
async function fixture() {
  const h = await ledgerHousehold()
  const checking = await newAccount(h, { name: 'Checking' })
  const card = await newAccount(h, { name: 'Card', type: 'credit' })
  const tracking = await newAccount(h, { name: 'House', type: 'tracking' })
  const food = await newCategory(h, 'Food')
  const home = await newCategory(h, 'Home Repairs')
  const tagA = await newTag(h, 'a')
  const tagB = await newTag(h, 'b')
  const red = await newFlag(h, 'Urgent')
  const row = (accountId: string, date: string, amountCents: number, args: Record<string, unknown> = {}) =>
    newTransaction(h, accountId, { date, amountCents, ...args })
  const ids: Record<string, string> = {}
  ids.bareCleared = (await row(checking.id, '2024-03-01', -1000, { status: 'cleared' })).id
  ids.barePending = (await row(checking.id, '2024-03-02', -2000)).id
  ids.offBudget = (await row(tracking.id, '2024-03-03', -700, { status: 'cleared' })).id
  ids.inflow = (await row(checking.id, '2024-03-04', 5000, { status: 'cleared', source: 'imported' })).id
  ids.lunch = (
    await row(checking.id, '2024-03-05', -300, {
      status: 'cleared',
      categoryId: food,
      memo: 'Lunch with 100% Bob',
      payeeName: 'Deli_Corner',
      tagIds: [tagA, tagB],
      flagIds: [red],
    })
  ).id
  ids.tagged = (await row(checking.id, '2024-03-06', -50, { categoryId: food, tagIds: [tagA] })).id
  const transfer = await h.run(operations.transactions.transfer, {
    fromAccountId: checking.id,
    toAccountId: card.id,
    amountCents: 1000,
    date: '2024-03-07',
    status: 'cleared',
    fromTransactionId: ulid(),
    toTransactionId: ulid(),
  })
  ids.transferOut = transfer.from.id
  ids.transferIn = transfer.to.id
  ids.split = (
    await row(checking.id, '2024-03-08', -900, {
      status: 'cleared',
      splits: [
        { amountCents: -400, categoryId: home },
        { amountCents: -500, categoryId: food, memo: 'snacks' },
      ],
    })
  ).id
  ids.review = (await row(checking.id, '2024-03-09', -10, { categoryId: food, needsReview: true })).id
  ids.suggested = (await row(card.id, '2024-03-10', -20)).id
  await h.run(operations.transactions.suggestCategory, {
    id: ids.suggested,
    categoryId: food,
    confidence: 0.8,
  })
  const reconciled = await h.run(operations.accounts.reconcile, {
    id: card.id,
    statementBalanceCents: 900,
    statementDate: '2024-03-31',
    adjustmentId: ulid(),
  })
  ids.adjustment = reconciled.adjustment!.id
  ids.bareReconciled = (await row(card.id, '2024-02-01', -30, { status: 'cleared' })).id
  await h.run(operations.accounts.reconcile, {
    id: card.id,
    statementBalanceCents: 870,
    statementDate: '2024-03-31',
    adjustmentId: ulid(),
  })
  return { h, ids, checking, card, food, home, tagA, tagB, red }
}

async function names(h: LedgerHousehold, ids: Record<string, string>, args: Record<string, unknown>) {
  const byId = new Map(Object.entries(ids).map(([k, v]) => [v, k]))
  const { items } = await h.read(operations.transactions.list, { limit: '100', ...args })
  return items.map((t) => byId.get(t.id) ?? t.id).sort()
}

describe('transactions.list filters', () => {
  it('applies uncategorized, attention and needsReview exactly as defined', async () => {
    const { h, ids } = await fixture()
    expect(await names(h, ids, { uncategorized: 'true' })).toEqual(['bareCleared', 'bareReconciled'])
    expect(await names(h, ids, { attention: 'true' })).toEqual([
      'bareCleared',
      'barePending',
      'review',
      'suggested',
    ])
    expect(await names(h, ids, { needsReview: 'true' })).toEqual(['review', 'suggested'])
    const rest = await names(h, ids, { needsReview: 'false' })
    expect(rest).not.toContain('review')
    expect(rest).toContain('lunch')
    const calm = await names(h, ids, { uncategorized: 'false', attention: 'false' })
    expect(calm).toEqual([
      'adjustment',
      'inflow',
      'lunch',
      'offBudget',
      'split',
      'tagged',
      'transferIn',
      'transferOut',
    ])
  })

  it('returns each row with the same splits, tags and flags as a single read', async () => {
    const { h, ids } = await fixture()
    const { items } = await h.read(operations.transactions.list, { limit: '100' })
    for (const name of ['lunch', 'split', 'tagged', 'transferOut']) {
      const listed = items.find((t) => t.id === ids[name])
      expect(listed, name).toEqual(await h.read(operations.transactions.get, { id: ids[name]! }))
    }
    const split = items.find((t) => t.id === ids.split)!
    expect(split.splits.map((s) => [s.amountCents, s.memo])).toEqual([
      ['-400', null],
      ['-500', 'snacks'],
    ])
    expect(items.find((t) => t.id === ids.lunch)!.tagIds).toHaveLength(2)
  })

  it('filters by status, statuses (which supersede status), source, amounts and dates', async () => {
    const { h, ids } = await fixture()
    expect(await names(h, ids, { status: 'pending' })).toEqual([
      'barePending',
      'review',
      'suggested',
      'tagged',
    ])
    expect(await names(h, ids, { status: 'pending', statuses: 'reconciled' })).toEqual([
      'adjustment',
      'bareReconciled',
      'transferIn',
    ])
    expect(await names(h, ids, { statuses: ['pending', 'reconciled'] })).toHaveLength(7)
    expect(await names(h, ids, { source: 'imported' })).toEqual(['inflow'])
    expect(await names(h, ids, { minAmountCents: '-1000', maxAmountCents: '-700' })).toEqual([
      'bareCleared',
      'offBudget',
      'split',
      'transferOut',
    ])
    expect(await names(h, ids, { dateFrom: '2024-03-04', dateTo: '2024-03-05' })).toEqual(['inflow', 'lunch'])
  })

  it('filters by account, payee, and category including split categories', async () => {
    const { h, ids, card, home, food } = await fixture()
    expect(await names(h, ids, { accountId: card.id })).toEqual([
      'adjustment',
      'bareReconciled',
      'suggested',
      'transferIn',
    ])
    expect(await names(h, ids, { categoryId: home })).toEqual(['split'])
    expect(await names(h, ids, { categoryId: food })).toEqual(['lunch', 'review', 'split', 'tagged'])
    const lunch = await h.read(operations.transactions.get, { id: ids.lunch! })
    expect(await names(h, ids, { payeeId: lunch.payeeId })).toEqual(['lunch'])
  })

  it('filters by tags (any or all), flags, hasTag and hasFlag', async () => {
    const { h, ids, tagA, tagB, red } = await fixture()
    expect(await names(h, ids, { tagIds: `${tagA},${tagB}` })).toEqual(['lunch', 'tagged'])
    expect(await names(h, ids, { tagIds: `${tagA},${tagB}`, tagMode: 'all' })).toEqual(['lunch'])
    expect(await names(h, ids, { tagId: tagB })).toEqual(['lunch'])
    expect(await names(h, ids, { hasTag: 'true' })).toEqual(['lunch', 'tagged'])
    expect(await names(h, ids, { flagIds: red })).toEqual(['lunch'])
    expect(await names(h, ids, { hasFlag: 'true' })).toEqual(['lunch'])
    expect(await names(h, ids, { hasFlag: 'false' })).not.toContain('lunch')
    const tooMany = Array.from({ length: 21 }, () => ulid()).join(',')
    await expect(h.read(operations.transactions.list, { tagIds: tooMany })).rejects.toMatchObject({
      status: 400,
    })
    await expect(h.read(operations.transactions.list, { flagIds: tooMany })).rejects.toMatchObject({
      status: 400,
    })
  })

  it('searches payee name, memo and category name case-insensitively, taking % and _ literally', async () => {
    const { h, ids } = await fixture()
    expect(await names(h, ids, { search: 'LUNCH' })).toEqual(['lunch'])
    expect(await names(h, ids, { search: 'deli_c' })).toEqual(['lunch'])
    expect(await names(h, ids, { search: '100%' })).toEqual(['lunch'])
    expect(await names(h, ids, { search: 'home rep' })).toEqual(['split'])
    expect(await names(h, ids, { search: 'food' })).toEqual(['lunch', 'review', 'split', 'tagged'])
    expect(await names(h, ids, { search: '_' })).toEqual(['lunch'])
  })

  it('caps limit at 100, refuses one below 1, and refuses a bad cursor with 400 INVALID_CURSOR', async () => {
    const h = await ledgerHousehold()
    for (const limit of ['0', '-1', '1.5', 'ten', 0, 2.5]) {
      await expect(h.read(operations.transactions.list, { limit })).rejects.toMatchObject({ status: 400 })
    }
    for (const limit of ['101', 101, '99999999999', 1e20]) {
      await expect(h.read(operations.transactions.list, { limit })).resolves.toMatchObject({
        items: expect.any(Array),
      })
    }
    for (const cursor of ['nonsense', 'djF8MjAyNC0xMy0wMXw', '!!']) {
      await expect(h.read(operations.transactions.list, { cursor })).rejects.toMatchObject({
        status: 400,
        code: 'INVALID_CURSOR',
      })
    }
    await expect(h.read(operations.transactions.list, { color: 'red' })).rejects.toMatchObject({
      status: 400,
    })
  })
})

describe('transactions.list paging', () => {
  it('defaults to 50 rows, newest first by date then id', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    for (let i = 0; i < 55; i++)
      await newTransaction(h, account.id, { date: `2024-01-${String((i % 28) + 1).padStart(2, '0')}` })
    const page = await h.read(operations.transactions.list, {})
    expect(page.items).toHaveLength(50)
    expect(page.nextCursor).toEqual(expect.any(String))
    const keys = page.items.map((t) => `${t.date}|${t.id}`)
    expect(keys).toEqual([...keys].sort().reverse())
    const rest = await h.read(operations.transactions.list, { cursor: page.nextCursor })
    expect(rest.items).toHaveLength(5)
    expect(rest.nextCursor).toBeNull()
  })

  it('never skips or repeats a row while rows are inserted between pages', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const original = new Set<string>()
    const day = (n: number) => `2024-0${1 + Math.floor(n / 28)}-${String((n % 28) + 1).padStart(2, '0')}`
    for (let i = 0; i < 90; i++) original.add((await newTransaction(h, account.id, { date: day(i % 60) })).id)
    const seen: string[] = []
    let cursor: string | null = null
    let insertedDuring = 0
    do {
      const page: { items: { id: string }[]; nextCursor: string | null } = await h.read(
        operations.transactions.list,
        { limit: 7, ...(cursor && { cursor }) },
      )
      seen.push(...page.items.map((t) => t.id))
      cursor = page.nextCursor
      // New rows land before, at and after the cursor's position, sharing dates with old rows.
      for (const n of [0, 30, 59]) {
        await newTransaction(h, account.id, { date: day(n) })
        insertedDuring++
      }
    } while (cursor)
    expect(new Set(seen).size).toBe(seen.length)
    for (const id of original) expect(seen).toContain(id)
    expect(insertedDuring).toBeGreaterThan(10)
    await expectBalancesExact(h)
  })
})
