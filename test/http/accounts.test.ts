import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { expectProblem, expectStatus, H } from './catalog-fixture.ts'
import {
  createAccount,
  createTransaction,
  expectBalancesExact,
  getAccount,
  listAll,
} from './ledger-fixture.ts'

const server = useTestServer()

const utcToday = () => new Date().toISOString().slice(0, 10)

describe('creating and reading accounts over HTTP', () => {
  it('creates an account whose opening balance is booked as a cleared row', async () => {
    const { api } = await server.newOwner()
    const account = await createAccount(api, {
      name: ' Main checking ',
      subtype: 'checking',
      openingBalanceCents: '125050',
      openingBalanceDate: '2025-01-01',
    })
    expect(account).toMatchObject({
      id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      name: 'Main checking',
      type: 'cash',
      subtype: 'checking',
      currency: 'USD',
      status: 'open',
      group: 'Cash',
      position: 0,
      bankFed: false,
      onBudget: true,
      balanceCents: '125050',
      clearedBalanceCents: '125050',
      unclearedBalanceCents: '0',
      closedAt: null,
    })
    const rows = await listAll(api, `accountId=${account.id}`)
    expect(rows).toEqual([
      expect.objectContaining({
        kind: 'opening_balance',
        amountCents: '125050',
        date: '2025-01-01',
        status: 'cleared',
      }),
    ])
    await expectBalancesExact(api, account.id)
  })

  it('takes a caller-chosen id, a currency and a group, and books no row for a zero opening balance', async () => {
    const { api } = await server.newOwner()
    const id = ulid()
    const card = await createAccount(api, {
      id,
      name: 'Visa',
      type: 'credit',
      currency: 'EUR',
      group: 'Cards',
      bankFed: true,
      openingBalanceCents: 0,
    })
    expect(card).toMatchObject({ id, currency: 'EUR', group: 'Cards', bankFed: true, balanceCents: '0' })
    expect(await listAll(api, `accountId=${id}`)).toEqual([])
    expectProblem(
      await api.post(`${H}/accounts`, { id, name: 'Again', type: 'cash' }),
      409,
      'ID_ALREADY_EXISTS',
    )
  })

  it('refuses bad account bodies with 400 VALIDATION_FAILED', async () => {
    const { api } = await server.newOwner()
    const bad = [
      { name: 'X', type: 'savings' },
      { name: 'X', type: 'cash', colour: 'red' },
      { name: '  ', type: 'cash' },
      { name: 'X', type: 'cash', currency: 'eur' },
      { name: 'X', type: 'cash', openingBalanceCents: 12.5 },
      { name: 'X', type: 'cash', openingBalanceCents: '1e3' },
      { name: 'X', type: 'cash', openingBalanceDate: '2025-02-30' },
      { name: 'X', type: 'cash', id: 'not-a-ulid' },
      { type: 'cash' },
    ]
    for (const body of bad) {
      expectProblem(await api.post(`${H}/accounts`, body), 400, 'VALIDATION_FAILED')
    }
    expectProblem(await api.request('POST', `${H}/accounts`, '{"name":'), 400, 'MALFORMED_JSON')
  })

  it('lists accounts by group then position, filtered by status', async () => {
    const { api } = await server.newOwner()
    const visa = await createAccount(api, { name: 'Visa', type: 'credit' })
    const checking = await createAccount(api, { name: 'Checking' })
    const savings = await createAccount(api, { name: 'Savings' })
    const house = await createAccount(api, { name: 'House', type: 'tracking' })
    const all = expectStatus(await api.get(`${H}/accounts`), 200)
    expect(all.items.map((a: any) => a.name)).toEqual(['Checking', 'Savings', 'Visa', 'House'])
    expect(all.items.map((a: any) => a.position)).toEqual([0, 1, 0, 0])
    expectStatus(await api.post(`${H}/accounts/${house.id}/close`), 200)
    const open = expectStatus(await api.get(`${H}/accounts?status=open`), 200)
    expect(open.items.map((a: any) => a.id)).toEqual([checking.id, savings.id, visa.id])
    const closed = expectStatus(await api.get(`${H}/accounts?status=closed`), 200)
    expect(closed.items.map((a: any) => a.id)).toEqual([house.id])
    expectProblem(await api.get(`${H}/accounts?status=gone`), 400, 'VALIDATION_FAILED')
    expectProblem(await api.get(`${H}/accounts?sort=name`), 400, 'VALIDATION_FAILED')
  })

  it('answers 404 for an unknown account and for another household’s', async () => {
    const a = await server.newOwner()
    const b = await server.newOwner()
    const mine = await createAccount(a.api, { openingBalanceCents: 500 })
    const path = `${H}/accounts/${mine.id}`
    expectProblem(await b.api.get(path), 404, 'NOT_FOUND')
    expectProblem(await b.api.patch(path, { name: 'Mine' }), 404, 'NOT_FOUND')
    expectProblem(await b.api.delete(`${path}?force=true`), 404, 'NOT_FOUND')
    expectProblem(await b.api.post(`${path}/reconcile`, { statementBalanceCents: 0 }), 404, 'NOT_FOUND')
    expectProblem(await b.api.post(`${path}/convert`, { type: 'credit' }), 404, 'NOT_FOUND')
    expectProblem(await b.api.post(`${path}/close`), 404, 'NOT_FOUND')
    expectProblem(await b.api.post(`${path}/reopen`), 404, 'NOT_FOUND')
    expectProblem(await b.api.get(`${path}/balance-history`), 404, 'NOT_FOUND')
    expectProblem(await b.api.get(`/households/${a.householdId}/accounts`), 404, 'NOT_FOUND')
    expectProblem(await a.api.get(`${H}/accounts/${ulid()}`), 404, 'NOT_FOUND')
    expect((await getAccount(a.api, mine.id)).balanceCents).toBe('500')
  })

  it('needs read:accounts to read and write:accounts to change', async () => {
    const reader = await server.newOwner(['read:accounts'])
    const writer = await server.newOwner(['write:accounts'])
    const id = ulid()
    expectProblem(
      await reader.api.post(`${H}/accounts`, { name: 'X', type: 'cash' }),
      403,
      'INSUFFICIENT_SCOPE',
    )
    expectProblem(
      await reader.api.post(`${H}/accounts/reorder`, { accountIds: [id] }),
      403,
      'INSUFFICIENT_SCOPE',
    )
    expectProblem(await reader.api.patch(`${H}/accounts/${id}`, { name: 'X' }), 403, 'INSUFFICIENT_SCOPE')
    expectProblem(await reader.api.delete(`${H}/accounts/${id}`), 403, 'INSUFFICIENT_SCOPE')
    for (const verb of ['reconcile', 'convert', 'close', 'reopen']) {
      expectProblem(await reader.api.post(`${H}/accounts/${id}/${verb}`, {}), 403, 'INSUFFICIENT_SCOPE')
    }
    expectProblem(await writer.api.get(`${H}/accounts`), 403, 'INSUFFICIENT_SCOPE')
    expectProblem(await writer.api.get(`${H}/accounts/${id}`), 403, 'INSUFFICIENT_SCOPE')
    expectProblem(await writer.api.get(`${H}/accounts/${id}/balance-history`), 403, 'INSUFFICIENT_SCOPE')
    expect((await reader.api.get(`${H}/accounts`)).status).toBe(200)
  })
})

describe('changing accounts over HTTP', () => {
  it('renames and regroups an account, which goes last in its new group', async () => {
    const { api } = await server.newOwner()
    await createAccount(api, { name: 'Visa', type: 'credit' })
    const account = await createAccount(api, { name: 'Old' })
    const updated = expectStatus(
      await api.patch(`${H}/accounts/${account.id}`, {
        name: 'New',
        group: 'Credit',
        subtype: null,
        bankFed: true,
      }),
      200,
    )
    expect(updated).toMatchObject({ name: 'New', group: 'Credit', position: 1, bankFed: true, type: 'cash' })
    expectProblem(
      await api.patch(`${H}/accounts/${account.id}`, { type: 'credit' }),
      400,
      'VALIDATION_FAILED',
    )
    expectProblem(
      await api.patch(`${H}/accounts/${account.id}`, { status: 'closed' }),
      400,
      'VALIDATION_FAILED',
    )
  })

  it('changes the currency only while the account has no rows', async () => {
    const { api } = await server.newOwner()
    const empty = await createAccount(api)
    expect(
      expectStatus(await api.patch(`${H}/accounts/${empty.id}`, { currency: 'EUR' }), 200).currency,
    ).toBe('EUR')
    const used = await createAccount(api, { openingBalanceCents: 100 })
    expectProblem(
      await api.patch(`${H}/accounts/${used.id}`, { currency: 'EUR' }),
      409,
      'ACCOUNT_HAS_TRANSACTIONS',
    )
  })

  it('reorders accounts within their groups atomically', async () => {
    const { api } = await server.newOwner()
    const a = await createAccount(api, { name: 'A' })
    const b = await createAccount(api, { name: 'B' })
    const c = await createAccount(api, { name: 'C' })
    const visa = await createAccount(api, { name: 'Visa', type: 'credit' })
    const res = await api.post(`${H}/accounts/reorder`, { accountIds: [c.id, a.id] })
    expect(res.status).toBe(204)
    expect(res.body).toBe('')
    const list = expectStatus(await api.get(`${H}/accounts`), 200)
    expect(list.items.map((x: any) => [x.name, x.position])).toEqual([
      ['C', 0],
      ['A', 1],
      ['B', 2],
      ['Visa', 0],
    ])
    const twice = expectProblem(
      await api.post(`${H}/accounts/reorder`, { accountIds: [b.id, visa.id, b.id] }),
      400,
      'DUPLICATE_ID',
    )
    expect(twice.errors).toEqual([expect.objectContaining({ path: 'accountIds.2' })])
    const other = await server.newOwner()
    const foreign = await createAccount(other.api)
    const unknown = expectProblem(
      await api.post(`${H}/accounts/reorder`, { accountIds: [b.id, foreign.id] }),
      400,
      'UNKNOWN_ID',
    )
    expect(unknown.errors).toEqual([expect.objectContaining({ path: 'accountIds.1' })])
    expectProblem(await api.post(`${H}/accounts/reorder`, { accountIds: [] }), 400, 'VALIDATION_FAILED')
    const after = expectStatus(await api.get(`${H}/accounts`), 200)
    expect(after.items.map((x: any) => x.name)).toEqual(['C', 'A', 'B', 'Visa'])
  })

  it('converts cash to credit and back, and refuses to cross the budget boundary with 422', async () => {
    const { api } = await server.newOwner()
    const account = await createAccount(api, { openingBalanceCents: 100 })
    const credit = expectStatus(
      await api.post(`${H}/accounts/${account.id}/convert`, { type: 'credit' }),
      200,
    )
    expect(credit).toMatchObject({ type: 'credit', onBudget: true, balanceCents: '100' })
    expectStatus(
      await api.post(`${H}/accounts/${account.id}/convert`, { type: 'cash', subtype: 'savings' }),
      200,
    )
    const refused = expectProblem(
      await api.post(`${H}/accounts/${account.id}/convert`, { type: 'tracking' }),
      422,
      'ACCOUNT_CONVERSION_NOT_ALLOWED',
    )
    expect(refused.detail).toMatch(/open a new tracking account and transfer the balance/i)
    expect(refused).toMatchObject({ fromType: 'cash', toType: 'tracking' })
    const loan = await createAccount(api, { name: 'Mortgage', type: 'loan' })
    expect(
      expectStatus(await api.post(`${H}/accounts/${loan.id}/convert`, { type: 'tracking' }), 200),
    ).toMatchObject({ type: 'tracking', onBudget: false })
    expectProblem(
      await api.post(`${H}/accounts/${loan.id}/convert`, { type: 'cash' }),
      422,
      'ACCOUNT_CONVERSION_NOT_ALLOWED',
    )
    expectProblem(
      await api.post(`${H}/accounts/${loan.id}/convert`, { type: 'boat' }),
      400,
      'VALIDATION_FAILED',
    )
    expect((await getAccount(api, account.id)).type).toBe('cash')
  })
})

describe('reconciling accounts over HTTP', () => {
  it('books the gap as an adjustment, locks cleared rows, and keeps balances exact', async () => {
    const { api } = await server.newOwner()
    const account = await createAccount(api, {
      openingBalanceCents: 10_000,
      openingBalanceDate: '2025-03-01',
    })
    const groceries = await createTransaction(api, account.id, {
      amountCents: -2_500,
      status: 'cleared',
      date: '2025-03-05',
    })
    const pending = await createTransaction(api, account.id, { amountCents: -700, date: '2025-03-06' })
    const later = await createTransaction(api, account.id, {
      amountCents: -100,
      status: 'cleared',
      date: '2025-03-20',
    })
    const res = expectStatus(
      await api.post(`${H}/accounts/${account.id}/reconcile`, {
        statementBalanceCents: '7400',
        statementDate: '2025-03-10',
      }),
      200,
    )
    expect(res.reconciledCount).toBe(3)
    expect(res.adjustment).toMatchObject({
      kind: 'adjustment',
      amountCents: '-100',
      date: '2025-03-10',
      status: 'reconciled',
    })
    expect(res.account).toMatchObject({ balanceCents: '6600', clearedBalanceCents: '7300' })
    const rows = await listAll(api, `accountId=${account.id}`)
    const statusOf = (id: string) => rows.find((r) => r.id === id)?.status
    expect(statusOf(groceries.id)).toBe('reconciled')
    expect(statusOf(pending.id)).toBe('pending')
    expect(statusOf(later.id)).toBe('cleared')
    await expectBalancesExact(api, account.id)

    // Matching statement: no adjustment, nothing left to lock on or before the date.
    const again = expectStatus(
      await api.post(`${H}/accounts/${account.id}/reconcile`, {
        statementBalanceCents: 7_400,
        statementDate: '2025-03-10',
      }),
      200,
    )
    expect(again).toMatchObject({ adjustment: null, reconciledCount: 0 })
  })

  it('refuses an edit or delete of a reconciled row with 409 until its status goes back to cleared', async () => {
    const { api } = await server.newOwner()
    const account = await createAccount(api)
    const row = await createTransaction(api, account.id, { amountCents: -2_000, status: 'cleared' })
    expectStatus(
      await api.post(`${H}/accounts/${account.id}/reconcile`, {
        statementBalanceCents: -2_000,
        statementDate: '2025-03-31',
      }),
      200,
    )
    const path = `${H}/transactions/${row.id}`
    const locked = expectProblem(
      await api.patch(path, { amountCents: -2_100 }),
      409,
      'TRANSACTION_RECONCILED',
    )
    expect(locked.transactionId).toBe(row.id)
    expectProblem(await api.patch(path, { date: '2025-03-11' }), 409, 'TRANSACTION_RECONCILED')
    expectProblem(await api.delete(path), 409, 'TRANSACTION_RECONCILED')
    expectProblem(
      await api.patch(path, { splits: [{ amountCents: -1_000 }, { amountCents: -1_000 }] }),
      409,
      'TRANSACTION_RECONCILED',
    )
    // A memo is no part of the reconciled amount.
    expect(expectStatus(await api.patch(path, { memo: 'groceries' }), 200)).toMatchObject({
      memo: 'groceries',
      status: 'reconciled',
    })
    const unlocked = expectStatus(await api.patch(path, { status: 'cleared', amountCents: -2_100 }), 200)
    expect(unlocked).toMatchObject({ status: 'cleared', amountCents: '-2100' })
    await expectBalancesExact(api, account.id)
  })

  it('refuses bad reconcile bodies and a closed account', async () => {
    const { api } = await server.newOwner()
    const account = await createAccount(api)
    const path = `${H}/accounts/${account.id}/reconcile`
    expectProblem(await api.post(path, {}), 400, 'VALIDATION_FAILED')
    expectProblem(await api.post(path, { statementBalanceCents: '12.50' }), 400, 'VALIDATION_FAILED')
    expectProblem(
      await api.post(path, { statementBalanceCents: 0, statementDate: '03/10/2025' }),
      400,
      'VALIDATION_FAILED',
    )
    expectProblem(await api.post(path, { statementBalanceCents: 0, extra: true }), 400, 'VALIDATION_FAILED')
    expectStatus(await api.post(`${H}/accounts/${account.id}/close`), 200)
    expectProblem(await api.post(path, { statementBalanceCents: 0 }), 409, 'ACCOUNT_CLOSED')
  })
})

describe('closing, reopening and deleting accounts over HTTP', () => {
  it('closes with an adjustment on the caller’s local day, then reopens', async () => {
    const { api } = await server.newOwner()
    const account = await createAccount(api, { openingBalanceCents: 4_200, openingBalanceDate: '2025-01-01' })
    await createTransaction(api, account.id, { amountCents: -200 })
    const before = utcToday()
    const closed = expectStatus(await api.post(`${H}/accounts/${account.id}/close`), 200)
    expect(closed.account).toMatchObject({
      status: 'closed',
      balanceCents: '0',
      closedAt: expect.any(String),
    })
    expect(closed.adjustment).toMatchObject({ kind: 'adjustment', amountCents: '-4000', status: 'cleared' })
    expect([before, utcToday()]).toContain(closed.adjustment.date)
    await expectBalancesExact(api, account.id)
    expectProblem(await api.post(`${H}/accounts/${account.id}/close`), 409, 'ACCOUNT_NOT_OPEN')
    expectProblem(
      await api.post(`${H}/transactions`, { accountId: account.id, date: '2025-03-01', amountCents: 1 }),
      409,
      'ACCOUNT_CLOSED',
    )

    const reopened = expectStatus(await api.post(`${H}/accounts/${account.id}/reopen`), 200)
    expect(reopened).toMatchObject({ status: 'open', closedAt: null, balanceCents: '0' })
    expectProblem(await api.post(`${H}/accounts/${account.id}/reopen`), 409, 'ACCOUNT_NOT_CLOSED')
  })

  it('closes an empty account without an adjustment, with a caller-chosen adjustment id otherwise', async () => {
    const { api } = await server.newOwner()
    const empty = await createAccount(api)
    expect(expectStatus(await api.post(`${H}/accounts/${empty.id}/close`, {}), 200).adjustment).toBeNull()
    const funded = await createAccount(api, { openingBalanceCents: 10 })
    const adjustmentId = ulid()
    const closed = expectStatus(await api.post(`${H}/accounts/${funded.id}/close`, { adjustmentId }), 200)
    expect(closed.adjustment.id).toBe(adjustmentId)
    expectProblem(
      await api.post(`${H}/accounts/${empty.id}/close`, { adjustmentId: 'x' }),
      400,
      'VALIDATION_FAILED',
    )
  })

  it('refuses to delete a non-zero balance without force, and deletes it with force', async () => {
    const { api } = await server.newOwner()
    const account = await createAccount(api, { openingBalanceCents: 900 })
    const refused = expectProblem(
      await api.delete(`${H}/accounts/${account.id}`),
      409,
      'ACCOUNT_BALANCE_NOT_ZERO',
    )
    expect(refused.balanceCents).toBe('900')
    expectProblem(
      await api.delete(`${H}/accounts/${account.id}?force=false`),
      409,
      'ACCOUNT_BALANCE_NOT_ZERO',
    )
    expectProblem(await api.delete(`${H}/accounts/${account.id}?force=yes`), 400, 'VALIDATION_FAILED')
    const res = await api.delete(`${H}/accounts/${account.id}?force=true`)
    expect(res.status).toBe(204)
    expectProblem(await api.get(`${H}/accounts/${account.id}`), 404, 'NOT_FOUND')
    expect(expectStatus(await api.get(`${H}/accounts`), 200).items).toEqual([])
    expect(await listAll(api, `accountId=${account.id}`)).toEqual([])
    expectProblem(await api.delete(`${H}/accounts/${account.id}?force=true`), 404, 'NOT_FOUND')

    const zero = await createAccount(api)
    expect((await api.delete(`${H}/accounts/${zero.id}`)).status).toBe(204)
  })
})

describe('balance history over HTTP', () => {
  it('gives one point per day with the running balance', async () => {
    const { api } = await server.newOwner()
    const account = await createAccount(api, { openingBalanceCents: 1_000, openingBalanceDate: '2025-03-01' })
    await createTransaction(api, account.id, { amountCents: -300, date: '2025-03-03' })
    await createTransaction(api, account.id, { amountCents: -200, date: '2025-03-03', status: 'cleared' })
    const history = expectStatus(
      await api.get(`${H}/accounts/${account.id}/balance-history?fromDate=2025-03-02&toDate=2025-03-04`),
      200,
    )
    expect(history).toEqual({
      accountId: account.id,
      fromDate: '2025-03-02',
      toDate: '2025-03-04',
      points: [
        { date: '2025-03-02', balanceCents: '1000', clearedBalanceCents: '1000' },
        { date: '2025-03-03', balanceCents: '500', clearedBalanceCents: '800' },
        { date: '2025-03-04', balanceCents: '500', clearedBalanceCents: '800' },
      ],
    })
    const fallback = expectStatus(await api.get(`${H}/accounts/${account.id}/balance-history`), 200)
    expect(fallback.points).toHaveLength(30)
    expect([utcToday(), fallback.toDate]).toContain(fallback.toDate)
  })

  it('bounds the window and refuses bad dates', async () => {
    const { api } = await server.newOwner()
    const account = await createAccount(api)
    const path = `${H}/accounts/${account.id}/balance-history`
    expect(
      expectStatus(await api.get(`${path}?fromDate=2024-01-01&toDate=2024-12-31`), 200).points,
    ).toHaveLength(366)
    expectProblem(await api.get(`${path}?fromDate=2024-01-01&toDate=2025-01-01`), 400, 'WINDOW_TOO_LARGE')
    expectProblem(await api.get(`${path}?fromDate=2025-02-01&toDate=2025-01-01`), 400, 'INVALID_DATE_RANGE')
    expectProblem(await api.get(`${path}?fromDate=2025-13-01`), 400, 'VALIDATION_FAILED')
    expectProblem(await api.get(`${path}?from=2025-01-01`), 400, 'VALIDATION_FAILED')
  })
})
