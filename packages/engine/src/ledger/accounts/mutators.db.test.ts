import { operations } from '@hearth/engine'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import {
  expectBalancesExact,
  ledgerHousehold,
  newAccount,
  newTransaction,
  outboxEvents,
} from '../test-fixture.ts'

describe('accounts.create', () => {
  it('books a non-zero opening balance as a cleared opening_balance row and announces both', async () => {
    const h = await ledgerHousehold({ baseCurrency: 'EUR' })
    const openingId = ulid()
    const account = await newAccount(h, {
      openingBalanceCents: '125050',
      openingBalanceDate: '2024-01-01',
      openingBalanceTransactionId: openingId,
      subtype: 'checking',
    })
    expect(account).toMatchObject({
      type: 'cash',
      subtype: 'checking',
      currency: 'EUR',
      status: 'open',
      group: 'Cash',
      position: 0,
      bankFed: false,
      onBudget: true,
      balanceCents: '125050',
      clearedBalanceCents: '125050',
      unclearedBalanceCents: '0',
    })
    const opening = await h.read(operations.transactions.get, { id: openingId })
    expect(opening).toMatchObject({
      accountId: account.id,
      date: '2024-01-01',
      amountCents: '125050',
      kind: 'opening_balance',
      status: 'cleared',
    })
    const events = await outboxEvents(h)
    expect(events.map((e) => e.type)).toEqual(['transaction.created', 'account.created'])
    expect(events[1]).toMatchObject({ data: { account: { id: account.id } } })
    await expectBalancesExact(h)
  })

  it('books no row for a zero opening balance and derives the row id when none is given', async () => {
    const h = await ledgerHousehold()
    const empty = await newAccount(h, { openingBalanceCents: 0 })
    expect(empty.balanceCents).toBe('0')
    const funded = await newAccount(h, { openingBalanceCents: -500, type: 'credit' })
    expect(funded).toMatchObject({ balanceCents: '-500', group: 'Credit', onBudget: true })
    const rows = await h.store.db
      .selectFrom('transactions')
      .select(['account_id', 'id'])
      .where('household_id', '=', h.ctx.householdId)
      .execute()
    expect(rows.map((r) => r.account_id)).toEqual([funded.id])
    expect(rows[0]!.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/)
  })

  it('dates the opening balance on the caller’s local day by default', async () => {
    const h = await ledgerHousehold({ timeZone: 'Pacific/Auckland' })
    // 20:00 UTC on 31 May is already 1 June in Auckland.
    const now = new Date('2024-05-31T20:00:00Z')
    const id = ulid()
    await h.run(
      operations.accounts.create,
      { id, name: 'Kiwi', type: 'cash', openingBalanceCents: 100, openingBalanceTransactionId: ulid() },
      { now },
    )
    const row = await h.store.db
      .selectFrom('transactions')
      .select('date')
      .where('account_id', '=', id)
      .executeTakeFirst()
    expect(row?.date).toBe('2024-06-01')
  })

  it('refuses a taken id with 409 and a caller without write:accounts with 403', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    await expect(newAccount(h, { id: account.id })).rejects.toMatchObject({
      status: 409,
      code: 'ID_ALREADY_EXISTS',
    })
    await expect(
      h.run(
        operations.accounts.create,
        { id: ulid(), name: 'X', type: 'cash' },
        { scopes: ['read:accounts'] },
      ),
    ).rejects.toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' })
    await expect(
      h.run(operations.accounts.create, { id: ulid(), name: 'X', type: 'savings' }),
    ).rejects.toMatchObject({ status: 400, code: 'VALIDATION_FAILED' })
  })
})

describe('accounts.update', () => {
  it('renames and moves an account to the end of another group', async () => {
    const h = await ledgerHousehold()
    await newAccount(h, { name: 'Wallet', group: 'Everyday' })
    const savings = await newAccount(h, { name: 'Savings' })
    const moved = await h.run(operations.accounts.update, {
      id: savings.id,
      name: 'Rainy day',
      group: 'Everyday',
    })
    expect(moved).toMatchObject({ name: 'Rainy day', group: 'Everyday', position: 1 })
    expect((await outboxEvents(h)).at(-1)?.type).toBe('account.updated')
  })

  it('changes currency only while the account has no rows', async () => {
    const h = await ledgerHousehold({ baseCurrency: 'USD' })
    const empty = await newAccount(h)
    expect(await h.run(operations.accounts.update, { id: empty.id, currency: 'CHF' })).toMatchObject({
      currency: 'CHF',
    })
    const used = await newAccount(h, { openingBalanceCents: 10 })
    await expect(h.run(operations.accounts.update, { id: used.id, currency: 'CHF' })).rejects.toMatchObject({
      status: 409,
      code: 'ACCOUNT_HAS_TRANSACTIONS',
    })
  })

  it('answers 404 for an unknown, foreign or deleted account', async () => {
    const h = await ledgerHousehold()
    const other = await ledgerHousehold()
    const foreign = await newAccount(other)
    const gone = await newAccount(h)
    await h.run(operations.accounts.delete, { id: gone.id })
    for (const id of [ulid(), foreign.id, gone.id, 'not-an-id']) {
      await expect(h.run(operations.accounts.update, { id, name: 'x' })).rejects.toMatchObject({
        status: 404,
        code: 'NOT_FOUND',
      })
    }
  })
})

describe('accounts.reorder', () => {
  it('sets positions within each group in the order given, unlisted accounts after', async () => {
    const h = await ledgerHousehold()
    const a = await newAccount(h, { name: 'A' })
    const b = await newAccount(h, { name: 'B' })
    const c = await newAccount(h, { name: 'C' })
    const card = await newAccount(h, { name: 'Card', type: 'credit' })
    await h.run(operations.accounts.reorder, { accountIds: [c.id, card.id, a.id] })
    const { items } = await h.read(operations.accounts.list, {})
    expect(items.map((x) => [x.name, x.group, x.position])).toEqual([
      ['C', 'Cash', 0],
      ['A', 'Cash', 1],
      ['B', 'Cash', 2],
      ['Card', 'Credit', 0],
    ])
    expect(b.position).toBe(1)
  })

  it('refuses repeated and unknown ids with 400 and changes nothing', async () => {
    const h = await ledgerHousehold()
    const a = await newAccount(h, { name: 'A' })
    const b = await newAccount(h, { name: 'B' })
    await expect(
      h.run(operations.accounts.reorder, { accountIds: [b.id, a.id, b.id] }),
    ).rejects.toMatchObject({
      status: 400,
      code: 'DUPLICATE_ID',
      errors: [{ path: 'accountIds.2' }],
    })
    await expect(h.run(operations.accounts.reorder, { accountIds: [b.id, ulid()] })).rejects.toMatchObject({
      status: 400,
      code: 'UNKNOWN_ID',
      errors: [{ path: 'accountIds.1' }],
    })
    const { items } = await h.read(operations.accounts.list, {})
    expect(items.map((x) => x.name)).toEqual(['A', 'B'])
  })
})

describe('accounts.reconcile', () => {
  it('books the gap as an adjustment, then locks cleared rows on or before the statement date', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h, { openingBalanceCents: 10000, openingBalanceDate: '2024-03-01' })
    const cleared = await newTransaction(h, account.id, {
      date: '2024-03-05',
      amountCents: -2500,
      status: 'cleared',
    })
    const pending = await newTransaction(h, account.id, { date: '2024-03-06', amountCents: -700 })
    const later = await newTransaction(h, account.id, {
      date: '2024-04-02',
      amountCents: -100,
      status: 'cleared',
    })
    const adjustmentId = ulid()
    // The bank says 74.00 on 31 March; the cleared rows up to then say 75.00.
    const result = await h.run(operations.accounts.reconcile, {
      id: account.id,
      statementBalanceCents: '7400',
      statementDate: '2024-03-31',
      adjustmentId,
    })
    expect(result.reconciledCount).toBe(3)
    expect(result.adjustment).toMatchObject({
      id: adjustmentId,
      amountCents: '-100',
      date: '2024-03-31',
      kind: 'adjustment',
      status: 'reconciled',
    })
    expect(result.account).toMatchObject({ balanceCents: '6600', clearedBalanceCents: '7300' })
    const status = async (id: string) => (await h.read(operations.transactions.get, { id })).status
    expect(await status(cleared.id)).toBe('reconciled')
    expect(await status(pending.id)).toBe('pending')
    expect(await status(later.id)).toBe('cleared')
    expect((await outboxEvents(h)).at(-1)).toMatchObject({
      type: 'account.reconciled',
      data: { reconciledCount: 3 },
    })
    await expectBalancesExact(h)
  })

  it('books nothing when the statement agrees, and refuses a closed account', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h, { openingBalanceCents: 5000, openingBalanceDate: '2024-01-01' })
    const result = await h.run(operations.accounts.reconcile, {
      id: account.id,
      statementBalanceCents: 5000,
      adjustmentId: ulid(),
    })
    expect(result).toMatchObject({ adjustment: null, reconciledCount: 1 })
    const empty = await newAccount(h)
    await h.run(operations.accounts.close, { id: empty.id, adjustmentId: ulid() })
    await expect(
      h.run(operations.accounts.reconcile, {
        id: empty.id,
        statementBalanceCents: 0,
        adjustmentId: ulid(),
      }),
    ).rejects.toMatchObject({ status: 409, code: 'ACCOUNT_CLOSED' })
  })
})

describe('accounts.close and accounts.reopen', () => {
  it('books the remaining balance on the user’s local day, else the household’s', async () => {
    const h = await ledgerHousehold({ timeZone: 'America/Los_Angeles' })
    // 03:00 UTC on 1 March is still 29 February in Los Angeles, and already 1 March in Berlin.
    const now = new Date('2024-03-01T03:00:00Z')
    const account = await newAccount(h, { openingBalanceCents: 4321, openingBalanceDate: '2024-01-01' })
    await newTransaction(h, account.id, { amountCents: -321 })
    const adjustmentId = ulid()
    const result = await h.run(operations.accounts.close, { id: account.id, adjustmentId }, { now })
    expect(result.adjustment).toMatchObject({ id: adjustmentId, amountCents: '-4000', date: '2024-02-29' })
    expect(result.account).toMatchObject({ status: 'closed', balanceCents: '0', closedAt: now.toISOString() })

    await h.store.db
      .updateTable('users')
      .set({ time_zone: 'Europe/Berlin' })
      .where('id', '=', h.ctx.userId)
      .execute()
    const second = await newAccount(h, { openingBalanceCents: 50 })
    const closed = await h.run(operations.accounts.close, { id: second.id, adjustmentId: ulid() }, { now })
    expect(closed.adjustment?.date).toBe('2024-03-01')
    await expectBalancesExact(h)
  })

  it('refuses to close twice, to reopen an open account, and to book on a closed one', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const { adjustment } = await h.run(operations.accounts.close, { id: account.id, adjustmentId: ulid() })
    expect(adjustment).toBeNull()
    await expect(
      h.run(operations.accounts.close, { id: account.id, adjustmentId: ulid() }),
    ).rejects.toMatchObject({
      status: 409,
      code: 'ACCOUNT_NOT_OPEN',
    })
    await expect(newTransaction(h, account.id)).rejects.toMatchObject({ status: 409, code: 'ACCOUNT_CLOSED' })
    expect(await h.run(operations.accounts.reopen, { id: account.id })).toMatchObject({
      status: 'open',
      closedAt: null,
    })
    await expect(h.run(operations.accounts.reopen, { id: account.id })).rejects.toMatchObject({
      status: 409,
      code: 'ACCOUNT_NOT_CLOSED',
    })
    const types = (await outboxEvents(h)).map((e) => e.type)
    expect(types).toEqual(['account.created', 'account.closed', 'account.reopened'])
  })
})

describe('accounts.delete', () => {
  it('refuses a non-zero balance with 409 ACCOUNT_BALANCE_NOT_ZERO unless force is "true"', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h, { openingBalanceCents: 100 })
    await expect(h.run(operations.accounts.delete, { id: account.id })).rejects.toMatchObject({
      status: 409,
      code: 'ACCOUNT_BALANCE_NOT_ZERO',
      extra: { balanceCents: '100' },
    })
    await expect(h.run(operations.accounts.delete, { id: account.id, force: 'false' })).rejects.toMatchObject(
      {
        code: 'ACCOUNT_BALANCE_NOT_ZERO',
      },
    )
    await h.run(operations.accounts.delete, { id: account.id, force: 'true' })
    await expect(h.read(operations.accounts.get, { id: account.id })).rejects.toMatchObject({ status: 404 })
    expect((await h.read(operations.accounts.list, {})).items).toEqual([])
    expect((await outboxEvents(h)).at(-1)).toMatchObject({
      type: 'account.deleted',
      data: { deletedTransactionCount: 1 },
    })
    await expectBalancesExact(h)
  })

  it('deletes a zero-balance account without force, and unlinks transfer legs elsewhere', async () => {
    const h = await ledgerHousehold()
    const a = await newAccount(h)
    const b = await newAccount(h, { name: 'Savings' })
    const fromId = ulid()
    const toId = ulid()
    await h.run(operations.transactions.transfer, {
      fromAccountId: a.id,
      toAccountId: b.id,
      amountCents: 500,
      date: '2024-03-01',
      fromTransactionId: fromId,
      toTransactionId: toId,
    })
    await newTransaction(h, b.id, { amountCents: 500 })
    await h.run(operations.accounts.delete, { id: b.id, force: true })
    const leg = await h.read(operations.transactions.get, { id: fromId })
    expect(leg.transferGroupId).toBeNull()
    await expect(h.read(operations.transactions.get, { id: toId })).rejects.toMatchObject({ status: 404 })
    await expectBalancesExact(h)
  })
})

describe('accounts.convert', () => {
  it('moves cash to credit and loan to tracking', async () => {
    const h = await ledgerHousehold()
    const cash = await newAccount(h)
    expect(await h.run(operations.accounts.convert, { id: cash.id, type: 'credit' })).toMatchObject({
      type: 'credit',
      onBudget: true,
    })
    const loan = await newAccount(h, { type: 'loan', name: 'Mortgage' })
    expect(
      await h.run(operations.accounts.convert, { id: loan.id, type: 'tracking', subtype: 'house' }),
    ).toMatchObject({ type: 'tracking', subtype: 'house', onBudget: false })
  })

  it('refuses a move across the budget boundary with 422 and guidance', async () => {
    const h = await ledgerHousehold()
    const cash = await newAccount(h)
    const error = await h.run(operations.accounts.convert, { id: cash.id, type: 'loan' }).catch((e) => e)
    expect(error).toMatchObject({ status: 422, code: 'ACCOUNT_CONVERSION_NOT_ALLOWED' })
    expect(error.message).toMatch(/open a new loan account and transfer the balance/i)
    const tracking = await newAccount(h, { type: 'tracking' })
    await expect(
      h.run(operations.accounts.convert, { id: tracking.id, type: 'credit' }),
    ).rejects.toMatchObject({
      status: 422,
    })
  })
})
