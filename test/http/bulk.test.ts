import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { type ApiClient, useTestServer } from '../src/index.ts'
import { createCategory, createGroup, expectProblem, expectStatus, H } from './catalog-fixture.ts'
import {
  bulkCreate,
  createAccount,
  createTransaction,
  expectBalancesExact,
  listAll,
} from './ledger-fixture.ts'

const server = useTestServer()

const rowsFor = (accountId: string, n: number, extra: (i: number) => Record<string, unknown> = () => ({})) =>
  Array.from({ length: n }, (_, i) => ({
    accountId,
    date: '2025-02-01',
    amountCents: -(i + 1),
    ...extra(i),
  }))

async function setup(api: ApiClient) {
  const account = await createAccount(api, { openingBalanceCents: 10_000, openingBalanceDate: '2025-01-01' })
  const group = await createGroup(api, 'Everyday')
  const food = await createCategory(api, group.id, 'Food')
  const fun = await createCategory(api, group.id, 'Fun')
  const trip = expectStatus(await api.post(`${H}/tags`, { name: 'Trip' }), 201)
  const work = expectStatus(await api.post(`${H}/tags`, { name: 'Work' }), 201)
  const flags = expectStatus(await api.get(`${H}/flags`), 200).items
  return { account, food, fun, trip, work, flags }
}

describe('bulk create over HTTP', () => {
  it('creates 500 rows in one request, in request order, and keeps the balance exact', async () => {
    const { api } = await server.newOwner()
    const { account, food, trip } = await setup(api)
    const id = ulid()
    const result = await bulkCreate(
      api,
      rowsFor(account.id, 500, (i) => ({
        ...(i === 0 && { id }),
        ...(i % 2 === 0 && { categoryId: food.id, tagIds: [trip.id] }),
        ...(i === 7 && { splits: [{ amountCents: -4, categoryId: food.id }, { amountCents: -4 }] }),
      })),
    )
    expect(result).toMatchObject({
      createdCount: 500,
      skippedCount: 0,
      matchedCount: 0,
      skipped: [],
      matched: [],
    })
    expect(result.items).toHaveLength(500)
    expect(result.items[0].id).toBe(id)
    expect(result.items.map((t: any) => t.amountCents)).toEqual(
      Array.from({ length: 500 }, (_, i) => String(-(i + 1))),
    )
    expect(result.items[2]).toMatchObject({ categoryId: food.id, tagIds: [trip.id] })
    expect(result.items[7].splits).toHaveLength(2)
    const account2 = await expectBalancesExact(api, account.id)
    expect(account2.balanceCents).toBe(String(10_000 - (500 * 501) / 2))
  })

  it('refuses 501 rows and an empty list with 400', async () => {
    const { api } = await server.newOwner()
    const { account } = await setup(api)
    const tooMany = expectProblem(
      await api.post(`${H}/transactions/bulk`, { transactions: rowsFor(account.id, 501) }),
      400,
      'VALIDATION_FAILED',
    )
    expect(tooMany.errors).toEqual([expect.objectContaining({ path: 'transactions' })])
    expectProblem(await api.post(`${H}/transactions/bulk`, { transactions: [] }), 400, 'VALIDATION_FAILED')
    expectProblem(await api.post(`${H}/transactions/bulk`, rowsFor(account.id, 2)), 400, 'VALIDATION_FAILED')
    expectProblem(
      await api.post(`${H}/transactions/bulk`, { transactions: rowsFor(account.id, 1), dryRun: true }),
      400,
      'VALIDATION_FAILED',
    )
    expect(await listAll(api, `accountId=${account.id}`)).toHaveLength(1)
  })

  it('rejects the whole request when one row is bad, naming its index', async () => {
    const { api } = await server.newOwner()
    const { account, food } = await setup(api)
    const foreign = await setup((await server.newOwner()).api)
    const post = (rows: Record<string, unknown>[]) =>
      api.post(`${H}/transactions/bulk`, { transactions: rows })

    const shape = expectProblem(
      await post(rowsFor(account.id, 10, (i) => (i === 7 ? { date: '2025-13-01' } : {}))),
      400,
      'VALIDATION_FAILED',
    )
    expect(shape.errors).toEqual([expect.objectContaining({ path: 'transactions.7.date' })])

    const sum = expectProblem(
      await post(
        rowsFor(account.id, 5, (i) =>
          i === 3 ? { splits: [{ amountCents: -1, categoryId: food.id }, { amountCents: -1 }] } : {},
        ),
      ),
      400,
      'SPLIT_SUM_MISMATCH',
    )
    expect(sum).toMatchObject({ index: 3 })
    expect(sum.errors).toEqual([expect.objectContaining({ path: 'transactions.3.splits' })])

    const reference = expectProblem(
      await post(rowsFor(account.id, 5, (i) => (i === 4 ? { categoryId: foreign.food.id } : {}))),
      404,
      'NOT_FOUND',
    )
    expect(reference).toMatchObject({ index: 4, path: 'transactions.4.categoryId' })

    const id = ulid()
    expectProblem(await post(rowsFor(account.id, 3, (i) => (i > 0 ? { id } : {}))), 400, 'DUPLICATE_ID')
    expect(await listAll(api, `accountId=${account.id}`)).toHaveLength(1)
    await expectBalancesExact(api, account.id)
  })

  it('skips a repeated importedId within one request and counts it', async () => {
    const { api } = await server.newOwner()
    const { account } = await setup(api)
    const result = await bulkCreate(
      api,
      rowsFor(account.id, 4, (i) => ({ importedId: `dup-${i % 2}` })),
    )
    expect(result).toMatchObject({
      createdCount: 2,
      skippedCount: 2,
      skipped: [
        { index: 2, importedId: 'dup-0' },
        { index: 3, importedId: 'dup-1' },
      ],
    })
    await expectBalancesExact(api, account.id)
  })
})

describe('bulk update over HTTP', () => {
  it('applies one patch to many rows atomically and returns the count', async () => {
    const { api } = await server.newOwner()
    const { account, food, trip, work, flags } = await setup(api)
    const rows = (
      await bulkCreate(
        api,
        rowsFor(account.id, 5, () => ({ tagIds: [trip.id] })),
      )
    ).items
    const ids = rows.slice(0, 3).map((t: any) => t.id)
    const payee = expectStatus(await api.post(`${H}/payees`, { name: 'Bakery' }), 201)
    const res = expectStatus(
      await api.patch(`${H}/transactions/bulk-update`, {
        ids,
        patch: {
          categoryId: food.id,
          status: 'cleared',
          memo: 'bread',
          payeeId: payee.id,
          flagIds: [flags[0].id],
          addTagIds: [work.id],
          removeTagIds: [trip.id],
        },
      }),
      200,
    )
    expect(res).toEqual({ count: 3 })
    for (const id of ids) {
      expect(expectStatus(await api.get(`${H}/transactions/${id}`), 200)).toMatchObject({
        categoryId: food.id,
        status: 'cleared',
        memo: 'bread',
        payeeId: payee.id,
        flagIds: [flags[0].id],
        tagIds: [work.id],
      })
    }
    const untouched = expectStatus(await api.get(`${H}/transactions/${rows[4].id}`), 200)
    expect(untouched).toMatchObject({ categoryId: null, status: 'pending', tagIds: [trip.id] })
    expect((await expectBalancesExact(api, account.id)).clearedBalanceCents).toBe(String(10_000 - 6))
  })

  it('keeps reconciled rules and refuses bad requests without changing anything', async () => {
    const { api } = await server.newOwner()
    const { account, fun } = await setup(api)
    const foreign = await setup((await server.newOwner()).api)
    const locked = await createTransaction(api, account.id, {
      amountCents: -50,
      status: 'cleared',
      date: '2025-02-01',
    })
    expectStatus(
      await api.post(`${H}/accounts/${account.id}/reconcile`, {
        statementBalanceCents: 9_950,
        statementDate: '2025-02-28',
      }),
      200,
    )
    const open = await createTransaction(api, account.id, { amountCents: -60, date: '2025-03-05' })
    const update = (body: unknown) => api.patch(`${H}/transactions/bulk-update`, body)

    const pending = expectProblem(
      await update({ ids: [open.id, locked.id], patch: { status: 'pending' } }),
      409,
      'TRANSACTION_RECONCILED',
    )
    expect(pending).toMatchObject({ transactionId: locked.id, index: 1 })
    expectProblem(
      await update({ ids: [open.id], patch: { status: 'reconciled' } }),
      400,
      'STATUS_NOT_ALLOWED',
    )
    const unknown = expectProblem(
      await update({ ids: [open.id, ulid()], patch: { memo: 'x' } }),
      404,
      'NOT_FOUND',
    )
    expect(unknown.errors).toEqual([expect.objectContaining({ path: 'ids.1' })])
    expectProblem(await update({ ids: [open.id], patch: { categoryId: foreign.food.id } }), 404, 'NOT_FOUND')
    expectProblem(await update({ ids: [open.id, open.id], patch: { memo: 'x' } }), 400, 'VALIDATION_FAILED')
    expectProblem(await update({ ids: [open.id], patch: {} }), 400, 'VALIDATION_FAILED')
    expectProblem(await update({ ids: [], patch: { memo: 'x' } }), 400, 'VALIDATION_FAILED')
    expectProblem(await update({ ids: [open.id], patch: { amountCents: 1 } }), 400, 'VALIDATION_FAILED')
    const many = Array.from({ length: 501 }, () => ulid())
    expectProblem(await update({ ids: many, patch: { memo: 'x' } }), 400, 'VALIDATION_FAILED')
    expect(expectStatus(await api.get(`${H}/transactions/${open.id}`), 200)).toMatchObject({
      status: 'pending',
      memo: null,
    })

    // A category and a memo leave a reconciled row locked but are allowed.
    expect(
      expectStatus(
        await update({ ids: [locked.id, open.id], patch: { categoryId: fun.id, memo: 'ok' } }),
        200,
      ),
    ).toEqual({ count: 2 })
    expect(expectStatus(await api.get(`${H}/transactions/${locked.id}`), 200)).toMatchObject({
      status: 'reconciled',
      categoryId: fun.id,
    })
    await expectBalancesExact(api, account.id)
  })
})
