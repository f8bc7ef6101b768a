import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { expectProblem, expectStatus, H } from './catalog-fixture.ts'
import {
  bulkCreate,
  createAccount,
  createTransaction,
  expectBalancesExact,
  listAll,
} from './ledger-fixture.ts'

const server = useTestServer()

async function payee(api: any, name: string) {
  return expectStatus(await api.post(`${H}/payees`, { name }), 201)
}

describe('payee aliases over HTTP', () => {
  it('adds, lists, deduplicates and removes aliases, and an import named by one lands on the payee', async () => {
    const { api } = await server.newOwner()
    const account = await createAccount(api)
    const amazon = await payee(api, 'Amazon')
    const alias = expectStatus(
      await api.post(`${H}/payees/${amazon.id}/aliases`, { name: 'AMZN Mktp US' }),
      201,
    )
    expect(alias).toMatchObject({ payeeId: amazon.id, name: 'AMZN Mktp US', normalizedName: 'amzn mktp us' })
    expect(
      expectStatus(await api.post(`${H}/payees/${amazon.id}/aliases`, { name: 'amzn  mktp-us' }), 201),
    ).toEqual(alias)
    expect(expectStatus(await api.get(`${H}/payees/${amazon.id}/aliases`), 200)).toEqual({ items: [alias] })

    const result = await bulkCreate(api, [
      {
        accountId: account.id,
        date: '2025-03-01',
        amountCents: -1299,
        payeeName: 'AMZN MKTP US',
        importedId: 'x1',
      },
      {
        accountId: account.id,
        date: '2025-03-02',
        amountCents: -500,
        payeeName: 'Corner Shop',
        importedId: 'x2',
      },
    ])
    expect(result.items[0].payeeId).toBe(amazon.id)
    expect(result.items[1].payeeId).not.toBe(amazon.id)
    // Found by page search through the alias.
    const found = expectStatus(await api.get(`${H}/payees/page?q=mktp`), 200)
    expect(found.items.map((p: any) => p.id)).toEqual([amazon.id])

    const other = await payee(api, 'Other')
    const taken = expectProblem(
      await api.post(`${H}/payees/${other.id}/aliases`, { name: 'AMZN MKTP US' }),
      409,
      'PAYEE_ALIAS_TAKEN',
    )
    expect(taken).toMatchObject({ payeeId: amazon.id, aliasId: alias.id })
    expectProblem(await api.post(`${H}/payees/${other.id}/aliases`, { name: '' }), 400, 'VALIDATION_FAILED')
    expectProblem(
      await api.post(`${H}/payees/${other.id}/aliases`, { name: 'x', payeeId: amazon.id }),
      400,
      'VALIDATION_FAILED',
    )

    expect((await api.delete(`${H}/payees/${amazon.id}/aliases/${alias.id}`)).status).toBe(204)
    expectProblem(await api.delete(`${H}/payees/${amazon.id}/aliases/${alias.id}`), 404, 'NOT_FOUND')
    expect(expectStatus(await api.get(`${H}/payees/${amazon.id}/aliases`), 200)).toEqual({ items: [] })
    // The row it attributed keeps its payee.
    expect((await listAll(api)).find((t) => t.id === result.items[0].id).payeeId).toBe(amazon.id)
    await expectBalancesExact(api, account.id)
  })

  it("hides one household's payee and aliases from another", async () => {
    const a = await server.newOwner()
    const b = await server.newOwner()
    const amazon = await payee(a.api, 'Amazon')
    const alias = expectStatus(await a.api.post(`${H}/payees/${amazon.id}/aliases`, { name: 'AMZN' }), 201)
    expectProblem(await b.api.get(`${H}/payees/${amazon.id}/aliases`), 404, 'NOT_FOUND')
    expectProblem(await b.api.post(`${H}/payees/${amazon.id}/aliases`, { name: 'y' }), 404, 'NOT_FOUND')
    expectProblem(await b.api.delete(`${H}/payees/${amazon.id}/aliases/${alias.id}`), 404, 'NOT_FOUND')
    const mine = await payee(b.api, 'Mine')
    expectProblem(
      await b.api.post(`${H}/payees/${mine.id}/merge`, { targetPayeeId: amazon.id }),
      404,
      'NOT_FOUND',
    )
  })
})

describe('payee merge and unmerge over HTTP', () => {
  it('walks merge, then unmerge, and every row reads as before', async () => {
    const { api } = await server.newOwner()
    const account = await createAccount(api)
    const target = await payee(api, 'Amazon Marketplace')
    const source = await payee(api, 'AMAZON MKTPLACE')
    const sourceAlias = expectStatus(
      await api.post(`${H}/payees/${source.id}/aliases`, { name: 'AMZN MKTP' }),
      201,
    )
    const rows = [
      await createTransaction(api, account.id, { payeeId: source.id }),
      await createTransaction(api, account.id, { payeeId: source.id, amountCents: -2500 }),
      await createTransaction(api, account.id, { payeeId: target.id }),
    ]
    const before = await listAll(api)
    const payeesBefore = expectStatus(await api.get(`${H}/payees`), 200)

    const merged = expectStatus(
      await api.post(`${H}/payees/${source.id}/merge`, { targetPayeeId: target.id }),
      200,
    )
    expect(merged.target).toEqual(target)
    expect(merged.merge).toMatchObject({
      sourcePayeeId: source.id,
      targetPayeeId: target.id,
      transactionIds: [rows[0].id, rows[1].id].sort(),
      splitIds: [],
      movedAliasIds: [sourceAlias.id],
      droppedAliasIds: [],
      createdAliasId: expect.any(String),
      unmergedAt: null,
    })
    expect(expectProblem(await api.get(`${H}/payees/${source.id}`), 404, 'PAYEE_MERGED').mergedInto).toBe(
      target.id,
    )
    expect((await listAll(api)).filter((t) => t.payeeId === target.id)).toHaveLength(3)
    const aliases = expectStatus(await api.get(`${H}/payees/${target.id}/aliases`), 200)
    expect(aliases.items.map((a: any) => a.name)).toEqual(['AMAZON MKTPLACE', 'AMZN MKTP'])
    const history = expectStatus(await api.get(`${H}/payees/${source.id}/merges`), 200)
    expect(history.items).toEqual([merged.merge])

    const undone = expectStatus(await api.post(`${H}/payees/${source.id}/unmerge`), 200)
    expect(undone.payee).toEqual(source)
    expect(undone.skippedTransactionIds).toEqual([])
    expect(undone.merge).toMatchObject({ id: merged.merge.id, unmergedAt: expect.any(String) })
    expect(await listAll(api)).toEqual(before)
    expect(expectStatus(await api.get(`${H}/payees`), 200)).toEqual(payeesBefore)
    expect(expectStatus(await api.get(`${H}/payees/${source.id}/aliases`), 200).items).toEqual([sourceAlias])
    expect(expectStatus(await api.get(`${H}/payees/${target.id}/aliases`), 200).items).toEqual([])
    expectProblem(await api.post(`${H}/payees/${source.id}/unmerge`, {}), 409, 'PAYEE_NOT_MERGED')
    await expectBalancesExact(api, account.id)
  })

  it('refuses a bad merge body by field, and replays a merge under its Idempotency-Key', async () => {
    const { api } = await server.newOwner()
    const a = await payee(api, 'Alpha')
    const b = await payee(api, 'Beta')
    expectProblem(await api.post(`${H}/payees/${a.id}/merge`, {}), 400, 'VALIDATION_FAILED')
    expectProblem(
      await api.post(`${H}/payees/${a.id}/merge`, { targetPayeeId: a.id }),
      400,
      'VALIDATION_FAILED',
    )
    expectProblem(await api.post(`${H}/payees/${a.id}/merge`, { targetPayeeId: 'nope' }), 404, 'NOT_FOUND')
    const headers = { 'Idempotency-Key': 'merge-alpha' }
    const first = await api.post(`${H}/payees/${a.id}/merge`, { targetPayeeId: b.id }, headers)
    const again = await api.post(`${H}/payees/${a.id}/merge`, { targetPayeeId: b.id }, headers)
    expect(first.status).toBe(200)
    expect(again.body).toEqual(first.body)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
  })

  it('one pattern alias catches every store number, and a merged payee’s read names where it went', async () => {
    const { api } = await server.newOwner()
    const starbucks = expectStatus(await api.post(`${H}/payees`, { name: 'Starbucks' }), 201)
    const alias = expectStatus(
      await api.post(`${H}/payees/${starbucks.id}/aliases`, { name: 'STARBUCKS', match: 'startsWith' }),
      201,
    )
    expect(alias).toMatchObject({ match: 'startsWith', normalizedName: 'starbucks' })
    expectProblem(
      await api.post(`${H}/payees/${starbucks.id}/aliases`, { name: '(?=x)', match: 'regex' }),
      400,
      'VALIDATION_FAILED',
    )
    expectProblem(
      await api.post(`${H}/payees/${starbucks.id}/aliases`, { name: 'x', match: 'fuzzy' }),
      400,
      'VALIDATION_FAILED',
    )
    const account = expectStatus(await api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' }), 201)
    const rows = ['STARBUCKS #1234', 'STARBUCKS #5678'].map((payeeName, i) => ({
      accountId: account.id,
      date: '2025-03-02',
      amountCents: -450 - i,
      payeeName,
      importedId: `sb${i}`,
    }))
    const bulk = expectStatus(await api.post(`${H}/transactions/bulk`, { transactions: rows }), 201)
    expect(bulk.items.map((t: any) => t.payeeId)).toEqual([starbucks.id, starbucks.id])

    const old = expectStatus(await api.post(`${H}/payees`, { name: 'Starbucks Seattle' }), 201)
    expectStatus(await api.post(`${H}/payees/${old.id}/merge`, { targetPayeeId: starbucks.id }), 200)
    const gone = expectProblem(await api.get(`${H}/payees/${old.id}`), 404, 'PAYEE_MERGED')
    expect(gone.mergedInto).toBe(starbucks.id)
    expectProblem(await api.get(`${H}/payees/01JD5Z9Y6XQ3M4N5P6R7S8T9V0`), 404, 'NOT_FOUND')
  })
})
