import { operations, runMutation, SCOPES } from '@hearth/engine'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { type TestMember, useTestServer } from '../src/index.ts'
import { createCategory, createGroup, expectProblem, expectStatus, H } from './catalog-fixture.ts'
import { createAccount, createTransaction, expectBalancesExact, listAll } from './ledger-fixture.ts'

const server = useTestServer()

/** A household with an account, two categories, two tags and the default flags. */
async function household(member?: TestMember) {
  const owner = member ?? (await server.newOwner())
  const { api } = owner
  const account = await createAccount(api, { openingBalanceCents: 50_000, openingBalanceDate: '2025-01-01' })
  const group = await createGroup(api, 'Everyday')
  const food = await createCategory(api, group.id, 'Food')
  const home = await createCategory(api, group.id, 'Home')
  const trip = expectStatus(await api.post(`${H}/tags`, { name: 'Trip' }), 201)
  const work = expectStatus(await api.post(`${H}/tags`, { name: 'Work' }), 201)
  const flags = expectStatus(await api.get(`${H}/flags`), 200).items
  return { ...owner, account, food, home, trip, work, flags }
}

describe('creating transactions over HTTP', () => {
  it('creates a row with splits, tags, flags and a payee found or created by name', async () => {
    const { api, account, food, home, trip, work, flags } = await household()
    const created = await createTransaction(api, account.id, {
      amountCents: '-12345',
      date: '2025-03-10',
      payeeName: '  Corner Shop ',
      memo: ' weekly ',
      splits: [
        { amountCents: -10_000, categoryId: food.id, memo: 'groceries' },
        { amountCents: '-2345', categoryId: home.id },
      ],
      tagIds: [work.id, trip.id],
      flagIds: [flags[0].id],
    })
    expect(created).toMatchObject({
      accountId: account.id,
      date: '2025-03-10',
      amountCents: '-12345',
      payeeId: expect.any(String),
      categoryId: null,
      memo: 'weekly',
      status: 'pending',
      source: 'manual',
      kind: 'normal',
      importedId: null,
      transferGroupId: null,
      possibleDuplicate: false,
      tagIds: [trip.id, work.id].sort(),
      flagIds: [flags[0].id],
    })
    expect(created.splits).toEqual([
      {
        id: expect.any(String),
        amountCents: '-10000',
        categoryId: food.id,
        payeeId: null,
        memo: 'groceries',
      },
      { id: expect.any(String), amountCents: '-2345', categoryId: home.id, payeeId: null, memo: null },
    ])
    const read = expectStatus(await api.get(`${H}/transactions/${created.id}`), 200)
    expect(read).toEqual(created)
    const payee = expectStatus(await api.get(`${H}/payees/${created.payeeId}`), 200)
    expect(payee.name).toBe('Corner Shop')
    const again = await createTransaction(api, account.id, { payeeName: 'corner shop' })
    expect(again.payeeId).toBe(created.payeeId)
    expect(await expectBalancesExact(api, account.id)).toMatchObject({
      balanceCents: String(50_000 - 12_345 - 1_000),
      clearedBalanceCents: '50000',
    })
  })

  it('takes a caller-chosen id and refuses it twice', async () => {
    const { api, account } = await household()
    const id = ulid()
    expect((await createTransaction(api, account.id, { id })).id).toBe(id)
    expectProblem(
      await api.post(`${H}/transactions`, { id, accountId: account.id, date: '2025-03-01', amountCents: 1 }),
      409,
      'ID_ALREADY_EXISTS',
    )
  })

  it('refuses splits that do not sum to the amount with 400 SPLIT_SUM_MISMATCH', async () => {
    const { api, account, food, home } = await household()
    const body = expectProblem(
      await api.post(`${H}/transactions`, {
        accountId: account.id,
        date: '2025-03-10',
        amountCents: -1_000,
        splits: [
          { amountCents: -600, categoryId: food.id },
          { amountCents: -300, categoryId: home.id },
        ],
      }),
      400,
      'SPLIT_SUM_MISMATCH',
    )
    expect(body).toMatchObject({ splitSumCents: '-900', amountCents: '-1000' })
    expect(body.errors).toEqual([expect.objectContaining({ path: 'splits' })])
    expectProblem(
      await api.post(`${H}/transactions`, {
        accountId: account.id,
        date: '2025-03-10',
        amountCents: -1_000,
        categoryId: food.id,
        splits: [{ amountCents: -600 }, { amountCents: -400 }],
      }),
      400,
      'SPLIT_CATEGORY_CONFLICT',
    )
    await expectBalancesExact(api, account.id)
  })

  it('refuses bad transaction bodies with a 4xx problem and a stable code', async () => {
    const { api, account, food, trip } = await household()
    const other = await household()
    const base = { accountId: account.id, date: '2025-03-10', amountCents: -100 }
    const invalid: Record<string, unknown>[] = [
      { ...base, amountCents: 1.5 },
      { ...base, amountCents: '12,00' },
      { ...base, date: '2025-02-29' },
      { ...base, status: 'reconciled' },
      { ...base, source: 'bank' },
      { ...base, payeeId: ulid(), payeeName: 'Both' },
      { ...base, splits: [{ amountCents: -100 }] },
      { ...base, tagIds: [trip.id, trip.id] },
      { ...base, tagIds: 'x' },
      { ...base, colour: 'red' },
      { accountId: account.id, amountCents: -100 },
      { ...base, splits: [{ amountCents: -50, extra: 1 }, { amountCents: -50 }] },
    ]
    for (const body of invalid) {
      expectProblem(await api.post(`${H}/transactions`, body), 400, 'VALIDATION_FAILED')
    }
    const refs: [Record<string, unknown>, string][] = [
      [{ ...base, accountId: other.account.id }, 'accountId'],
      [{ ...base, categoryId: other.food.id }, 'categoryId'],
      [{ ...base, tagIds: [trip.id, other.trip.id] }, 'tagIds.1'],
      [{ ...base, flagIds: [other.flags[0].id] }, 'flagIds.0'],
      [{ ...base, payeeId: ulid() }, 'payeeId'],
      [
        {
          ...base,
          splits: [
            { amountCents: -50, categoryId: food.id },
            { amountCents: -50, categoryId: other.home.id },
          ],
        },
        'splits.1.categoryId',
      ],
    ]
    for (const [body, path] of refs) {
      const problem = expectProblem(await api.post(`${H}/transactions`, body), 404, 'NOT_FOUND')
      expect(problem.errors).toEqual([expect.objectContaining({ path })])
    }
    expectStatus(await api.delete(`${H}/categories/${food.id}`), 204)
    expectProblem(await api.post(`${H}/transactions`, { ...base, categoryId: food.id }), 404, 'NOT_FOUND')
    await expectBalancesExact(api, account.id)
  })

  it('refuses a second live row with the same importedId on an account with 409', async () => {
    const { api, account } = await household()
    const first = await createTransaction(api, account.id, { importedId: 'bank-1' })
    expect(first).toMatchObject({ source: 'imported', status: 'cleared', importedId: 'bank-1' })
    expect(expectStatus(await api.get(`${H}/accounts/${account.id}`), 200).bankFed).toBe(true)
    const dup = expectProblem(
      await api.post(`${H}/transactions`, {
        accountId: account.id,
        date: '2025-03-11',
        amountCents: -5,
        importedId: 'bank-1',
      }),
      409,
      'DUPLICATE_IMPORTED_ID',
    )
    expect(dup.transactionId).toBe(first.id)
  })
})

describe('updating and deleting transactions over HTTP', () => {
  it('replaces splits and tags when supplied and keeps them otherwise', async () => {
    const { api, account, food, home, trip, work, flags } = await household()
    const row = await createTransaction(api, account.id, {
      amountCents: -1_000,
      categoryId: food.id,
      tagIds: [trip.id],
      flagIds: [flags[0].id],
    })
    const path = `${H}/transactions/${row.id}`
    const memo = expectStatus(await api.patch(path, { memo: 'lunch' }), 200)
    expect(memo).toMatchObject({
      memo: 'lunch',
      tagIds: [trip.id],
      flagIds: [flags[0].id],
      categoryId: food.id,
    })
    const split = expectStatus(
      await api.patch(path, {
        amountCents: -1_500,
        splits: [
          { amountCents: -1_000, categoryId: food.id },
          { amountCents: -500, categoryId: home.id },
        ],
        tagIds: [work.id],
        flagIds: [],
      }),
      200,
    )
    expect(split).toMatchObject({ amountCents: '-1500', categoryId: null, tagIds: [work.id], flagIds: [] })
    expect(split.splits.map((s: any) => s.amountCents)).toEqual(['-1000', '-500'])
    expectProblem(await api.patch(path, { amountCents: -2_000 }), 400, 'SPLIT_SUM_MISMATCH')
    const plain = expectStatus(await api.patch(path, { splits: [], categoryId: home.id, memo: '' }), 200)
    expect(plain).toMatchObject({ splits: [], categoryId: home.id, memo: null, amountCents: '-1500' })
    expect(expectStatus(await api.get(path), 200)).toEqual(plain)
    await expectBalancesExact(api, account.id)
  })

  it('moves a row to another account and keeps both balances exact', async () => {
    const { api, account } = await household()
    const savings = await createAccount(api, { name: 'Savings' })
    const row = await createTransaction(api, account.id, { amountCents: -700, status: 'cleared' })
    const moved = expectStatus(
      await api.patch(`${H}/transactions/${row.id}`, { accountId: savings.id, date: '2025-04-01' }),
      200,
    )
    expect(moved).toMatchObject({ accountId: savings.id, date: '2025-04-01' })
    expect((await expectBalancesExact(api, account.id)).balanceCents).toBe('50000')
    expect((await expectBalancesExact(api, savings.id)).balanceCents).toBe('-700')
  })

  it('refuses bad updates with stable codes', async () => {
    const { api, account } = await household()
    const other = await household()
    const row = await createTransaction(api, account.id)
    const path = `${H}/transactions/${row.id}`
    expectProblem(await api.patch(path, { id: ulid() }), 400, 'VALIDATION_FAILED')
    expectProblem(await api.patch(path, { kind: 'adjustment' }), 400, 'VALIDATION_FAILED')
    expectProblem(await api.patch(path, { payeeId: ulid(), payeeName: 'Both' }), 400, 'VALIDATION_FAILED')
    expectProblem(await api.patch(path, { status: 'reconciled' }), 400, 'STATUS_NOT_ALLOWED')
    expectProblem(await api.patch(path, { accountId: other.account.id }), 404, 'NOT_FOUND')
    expectProblem(await api.patch(path, { amountCents: null }), 400, 'VALIDATION_FAILED')
  })

  it('soft-deletes a row and takes it off the balance', async () => {
    const { api, account } = await household()
    const row = await createTransaction(api, account.id, { amountCents: -4_000 })
    expect((await expectBalancesExact(api, account.id)).balanceCents).toBe('46000')
    const res = await api.delete(`${H}/transactions/${row.id}`)
    expect(res.status).toBe(204)
    expectProblem(await api.get(`${H}/transactions/${row.id}`), 404, 'NOT_FOUND')
    expectProblem(await api.delete(`${H}/transactions/${row.id}`), 404, 'NOT_FOUND')
    expectProblem(await api.patch(`${H}/transactions/${row.id}`, { memo: 'x' }), 404, 'NOT_FOUND')
    expect((await expectBalancesExact(api, account.id)).balanceCents).toBe('50000')
  })

  it('removes one tag from a row', async () => {
    const { api, account, trip, work } = await household()
    const row = await createTransaction(api, account.id, { tagIds: [trip.id, work.id] })
    const res = await api.delete(`${H}/transactions/${row.id}/tags/${trip.id}`)
    expect(res.status).toBe(204)
    expect(expectStatus(await api.get(`${H}/transactions/${row.id}`), 200).tagIds).toEqual([work.id])
    // Removing a tag the row no longer carries changes nothing.
    expect((await api.delete(`${H}/transactions/${row.id}/tags/${trip.id}`)).status).toBe(204)
    expectProblem(await api.delete(`${H}/transactions/${row.id}/tags/${ulid()}`), 404, 'NOT_FOUND')
    expectProblem(await api.delete(`${H}/transactions/${ulid()}/tags/${work.id}`), 404, 'NOT_FOUND')
  })
})

describe('category suggestions over HTTP', () => {
  async function suggest(member: TestMember, id: string, categoryId: string) {
    await runMutation(
      server.store.db,
      operations.transactions.suggestCategory,
      { id, categoryId, confidence: 0.9, reason: 'Like last month' },
      {
        userId: member.userId,
        householdId: member.householdId,
        role: 'owner',
        scopes: [...SCOPES],
        now: new Date(),
      },
    )
  }

  it('accepts a suggestion: the category is set and the suggestion fields cleared', async () => {
    const h = await household()
    const row = await createTransaction(h.api, h.account.id)
    await suggest(h, row.id, h.food.id)
    const suggested = expectStatus(await h.api.get(`${H}/transactions/${row.id}`), 200)
    expect(suggested).toMatchObject({
      suggestedCategoryId: h.food.id,
      suggestionConfidence: 0.9,
      suggestionReason: 'Like last month',
    })
    const review = await listAll(h.api, 'needsReview=true')
    expect(review.map((r) => r.id)).toEqual([row.id])
    const accepted = expectStatus(await h.api.post(`${H}/transactions/${row.id}/accept-suggestion`), 200)
    expect(accepted).toMatchObject({
      categoryId: h.food.id,
      suggestedCategoryId: null,
      suggestionConfidence: null,
      suggestionReason: null,
      needsReview: false,
    })
    expectProblem(await h.api.post(`${H}/transactions/${row.id}/accept-suggestion`), 409, 'NO_SUGGESTION')
  })

  it('rejects a suggestion: the row stays uncategorized', async () => {
    const h = await household()
    const row = await createTransaction(h.api, h.account.id)
    await suggest(h, row.id, h.home.id)
    const rejected = expectStatus(await h.api.post(`${H}/transactions/${row.id}/reject-suggestion`), 200)
    expect(rejected).toMatchObject({ categoryId: null, suggestedCategoryId: null, needsReview: false })
    expectProblem(await h.api.post(`${H}/transactions/${row.id}/reject-suggestion`), 409, 'NO_SUGGESTION')
  })

  it('refuses to accept a suggestion whose category was deleted', async () => {
    const h = await household()
    const row = await createTransaction(h.api, h.account.id)
    await suggest(h, row.id, h.home.id)
    expectStatus(await h.api.delete(`${H}/categories/${h.home.id}`), 204)
    expectProblem(await h.api.post(`${H}/transactions/${row.id}/accept-suggestion`), 409, 'SUGGESTION_STALE')
  })
})

describe('transaction access over HTTP', () => {
  it("answers 404 for another household's transaction on every route", async () => {
    const a = await household()
    const b = await server.newOwner()
    const row = await createTransaction(a.api, a.account.id, { tagIds: [a.trip.id] })
    const path = `${H}/transactions/${row.id}`
    expectProblem(await b.api.get(path), 404, 'NOT_FOUND')
    expectProblem(await b.api.patch(path, { memo: 'mine' }), 404, 'NOT_FOUND')
    expectProblem(await b.api.delete(path), 404, 'NOT_FOUND')
    expectProblem(await b.api.delete(`${path}/tags/${a.trip.id}`), 404, 'NOT_FOUND')
    for (const verb of [
      'accept-suggestion',
      'reject-suggestion',
      'unlink-transfer',
      'unmatch',
      'dismiss-match',
    ]) {
      expectProblem(await b.api.post(`${path}/${verb}`), 404, 'NOT_FOUND')
    }
    expectProblem(await b.api.post(`${path}/link-transfer`, { counterpartId: row.id }), 404, 'NOT_FOUND')
    expectProblem(await b.api.post(`${path}/match`, { candidateId: row.id }), 404, 'NOT_FOUND')
    expectProblem(await b.api.get(`${path}/transfer-candidates`), 404, 'NOT_FOUND')
    expectProblem(await b.api.get(`${path}/match-candidates`), 404, 'NOT_FOUND')
    expectProblem(await b.api.get(`/households/${a.householdId}/transactions`), 404, 'NOT_FOUND')
    expect(expectStatus(await b.api.get(`${H}/transactions`), 200)).toEqual({ items: [], nextCursor: null })
    expect(expectStatus(await a.api.get(path), 200).tagIds).toEqual([a.trip.id])
  })

  it('needs read:transactions to read and write:transactions to change', async () => {
    const reader = await server.newOwner(['read:transactions'])
    const writer = await server.newOwner(['write:transactions'])
    const id = ulid()
    const path = `${H}/transactions/${id}`
    const writes: [string, string, unknown?][] = [
      ['POST', `${H}/transactions`, {}],
      ['POST', `${H}/transactions/transfer`, {}],
      ['POST', `${H}/transactions/bulk`, {}],
      ['PATCH', `${H}/transactions/bulk-update`, {}],
      ['PATCH', path, {}],
      ['DELETE', path],
      ['DELETE', `${path}/tags/${id}`],
      ['POST', `${path}/accept-suggestion`],
      ['POST', `${path}/reject-suggestion`],
      ['POST', `${path}/link-transfer`, {}],
      ['POST', `${path}/unlink-transfer`],
      ['POST', `${path}/match`, {}],
      ['POST', `${path}/unmatch`],
      ['POST', `${path}/dismiss-match`],
    ]
    for (const [method, url, body] of writes) {
      expectProblem(await reader.api.request(method, url, body), 403, 'INSUFFICIENT_SCOPE')
    }
    const reads = [
      `${H}/transactions`,
      path,
      `${path}/transfer-candidates`,
      `${path}/match-candidates`,
      `${H}/transactions/daily-summary?fromDate=2025-01-01&toDate=2025-01-31`,
      `${H}/transactions/stale-pending-count`,
    ]
    for (const url of reads) expectProblem(await writer.api.get(url), 403, 'INSUFFICIENT_SCOPE')
    expect((await reader.api.get(`${H}/transactions`)).status).toBe(200)
  })
})
