import { operations } from '@hearth/engine'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { ledgerHousehold, newAccount, newTransaction } from '../test-fixture.ts'

describe('accounts.list and accounts.get', () => {
  it('orders by group, then position, and filters by status', async () => {
    const h = await ledgerHousehold()
    const card = await newAccount(h, { name: 'Card', type: 'credit' })
    await newAccount(h, { name: 'Wallet' })
    await newAccount(h, { name: 'Bank' })
    await h.run(operations.accounts.close, { id: card.id, adjustmentId: ulid() })
    const all = await h.read(operations.accounts.list, {})
    expect(all.items.map((a) => a.name)).toEqual(['Wallet', 'Bank', 'Card'])
    const open = await h.read(operations.accounts.list, { status: 'open' })
    expect(open.items.map((a) => a.name)).toEqual(['Wallet', 'Bank'])
    const closed = await h.read(operations.accounts.list, { status: 'closed' })
    expect(closed.items.map((a) => a.name)).toEqual(['Card'])
    await expect(h.read(operations.accounts.list, { status: 'gone' })).rejects.toMatchObject({
      status: 400,
    })
  })

  it('returns balance, cleared and uncleared balances as integer strings', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h, { openingBalanceCents: 10000 })
    await newTransaction(h, account.id, { amountCents: -1234 })
    await newTransaction(h, account.id, { amountCents: -66, status: 'cleared' })
    expect(await h.read(operations.accounts.get, { id: account.id })).toMatchObject({
      balanceCents: '8700',
      clearedBalanceCents: '9934',
      unclearedBalanceCents: '-1234',
    })
  })

  it('refuses callers without read:accounts', async () => {
    const h = await ledgerHousehold()
    await expect(
      h.read(operations.accounts.list, {}, { scopes: ['read:transactions'] }),
    ).rejects.toMatchObject({
      status: 403,
    })
  })
})

describe('accounts.balanceHistory', () => {
  it('returns one running balance per day of the window', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h, { openingBalanceCents: 1000, openingBalanceDate: '2024-02-27' })
    await newTransaction(h, account.id, { date: '2024-03-01', amountCents: -100, status: 'cleared' })
    await newTransaction(h, account.id, { date: '2024-03-01', amountCents: -50 })
    await newTransaction(h, account.id, { date: '2024-03-03', amountCents: 25 })
    const history = await h.read(operations.accounts.balanceHistory, {
      id: account.id,
      fromDate: '2024-02-28',
      toDate: '2024-03-03',
    })
    expect(history.points).toEqual([
      { date: '2024-02-28', balanceCents: '1000', clearedBalanceCents: '1000' },
      { date: '2024-02-29', balanceCents: '1000', clearedBalanceCents: '1000' },
      { date: '2024-03-01', balanceCents: '850', clearedBalanceCents: '900' },
      { date: '2024-03-02', balanceCents: '850', clearedBalanceCents: '900' },
      { date: '2024-03-03', balanceCents: '875', clearedBalanceCents: '900' },
    ])
    const current = await h.read(operations.accounts.get, { id: account.id })
    expect(history.points.at(-1)?.balanceCents).toBe(current.balanceCents)
  })

  it('defaults to the 30 days ending today and bounds the window at 366 days', async () => {
    const h = await ledgerHousehold({ timeZone: 'UTC' })
    const account = await newAccount(h)
    const now = new Date('2024-03-31T12:00:00Z')
    const history = await h.read(operations.accounts.balanceHistory, { id: account.id }, { now })
    expect([history.fromDate, history.toDate, history.points.length]).toEqual([
      '2024-03-02',
      '2024-03-31',
      30,
    ])
    const year = await h.read(operations.accounts.balanceHistory, {
      id: account.id,
      fromDate: '2024-01-01',
      toDate: '2024-12-31',
    })
    expect(year.points).toHaveLength(366)
    await expect(
      h.read(operations.accounts.balanceHistory, {
        id: account.id,
        fromDate: '2023-12-31',
        toDate: '2024-12-31',
      }),
    ).rejects.toMatchObject({ status: 400, code: 'WINDOW_TOO_LARGE' })
    await expect(
      h.read(operations.accounts.balanceHistory, {
        id: account.id,
        fromDate: '2024-02-01',
        toDate: '2024-01-01',
      }),
    ).rejects.toMatchObject({ status: 400, code: 'INVALID_DATE_RANGE' })
  })
})
