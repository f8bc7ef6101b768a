import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { apiClient, useTestServer } from '../src/index.ts'
import { createCategory, createGroup, expectProblem, expectStatus, H } from './catalog-fixture.ts'
import { bulkCreate, createAccount, createTransaction } from './ledger-fixture.ts'

const server = useTestServer()

const payeeContains = (value: string) => ({
  combinator: 'all',
  conditions: [{ field: 'payee_name', op: 'contains', value }],
})

async function setup() {
  const owner = await server.newOwner()
  const { api } = owner
  const group = await createGroup(api, 'Everyday')
  const groceries = await createCategory(api, group.id, 'Groceries')
  const dining = await createCategory(api, group.id, 'Dining')
  const account = await createAccount(api)
  return {
    ...owner,
    groceries: groceries.id as string,
    dining: dining.id as string,
    account: account.id as string,
  }
}

describe('rules over HTTP', () => {
  it('creates, reads, lists by priority, updates and soft-deletes a rule', async () => {
    const { api, groceries } = await setup()
    const rule = expectStatus(
      await api.post(`${H}/rules`, {
        name: 'Supermarket',
        predicate: {
          combinator: 'any',
          conditions: [
            { field: 'payee_name', op: 'contains', value: 'rewe' },
            { field: 'outflow', op: 'between', value: { min: '100', max: 2500 } },
          ],
        },
        action: { setCategoryId: groceries },
        priority: 3,
      }),
      201,
    )
    expect(rule).toEqual({
      id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      name: 'Supermarket',
      predicate: {
        combinator: 'any',
        conditions: [
          { field: 'payee_name', op: 'contains', value: 'rewe' },
          { field: 'outflow', op: 'between', value: { min: '100', max: '2500' } },
        ],
      },
      action: { setCategoryId: groceries },
      enabled: true,
      priority: 3,
      learned: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    const first = expectStatus(
      await api.post(`${H}/rules`, {
        name: 'First',
        predicate: payeeContains('x'),
        action: { appendMemo: '!' },
      }),
      201,
    )
    expect(expectStatus(await api.get(`${H}/rules`), 200).items.map((r: any) => r.name)).toEqual([
      'First',
      'Supermarket',
    ])
    expect(expectStatus(await api.get(`${H}/rules/${rule.id}`), 200)).toEqual(rule)
    const patched = expectStatus(
      await api.patch(`${H}/rules/${first.id}`, { priority: 10, enabled: false }),
      200,
    )
    expect(patched).toMatchObject({ priority: 10, enabled: false, name: 'First' })
    expect(expectStatus(await api.get(`${H}/rules`), 200).items.map((r: any) => r.name)).toEqual([
      'Supermarket',
      'First',
    ])
    expect((await api.delete(`${H}/rules/${first.id}`)).status).toBe(204)
    expectProblem(await api.get(`${H}/rules/${first.id}`), 404, 'NOT_FOUND')
    expect(expectStatus(await api.get(`${H}/rules`), 200).items).toHaveLength(1)
  })

  it('answers 400 naming the path for a malformed predicate, unknown field or operator, or a refused regex', async () => {
    const { api } = await setup()
    const post = (predicate: unknown, action: unknown = { appendMemo: 'x' }) =>
      api.post(`${H}/rules`, { name: 'R', predicate, action })
    const paths = async (res: any) =>
      expectProblem(res, 400, 'VALIDATION_FAILED').errors.map((e: any) => e.path)
    expect(
      await paths(await post({ combinator: 'all', conditions: [{ field: 'colour', op: 'is', value: 'x' }] })),
    ).toEqual(['predicate.conditions.0.field'])
    expect(
      await paths(
        await post({ combinator: 'all', conditions: [{ field: 'date', op: 'contains', value: 'x' }] }),
      ),
    ).toEqual(['predicate.conditions.0.op'])
    expect(
      await paths(
        await post({ combinator: 'all', conditions: [{ field: 'memo', op: 'matches', value: '(?<=a)b' }] }),
      ),
    ).toEqual(['predicate.conditions.0.value'])
    expect(await paths(await post({ combinator: 'some', conditions: [] }))).toEqual([
      'predicate.combinator',
      'predicate.conditions',
    ])
    expect(await paths(await post(payeeContains('x'), {}))).toEqual(['action'])
    expect(await paths(await post(payeeContains('x'), { setColour: 'red' }))).toContain('action.setColour')
    const missing = expectProblem(await post(payeeContains('x'), { setCategoryId: ulid() }), 404, 'NOT_FOUND')
    expect(missing.path).toBe('action.setCategoryId')
  })

  it('classifies created and imported rows, and says why through rule-applications', async () => {
    const { api, groceries, dining, account } = await setup()
    const rule = expectStatus(
      await api.post(`${H}/rules`, {
        name: 'REWE',
        predicate: payeeContains('rewe'),
        action: { setCategoryId: groceries },
      }),
      201,
    )
    const row = await createTransaction(api, account, { payeeName: 'REWE Berlin' })
    expect(row.categoryId).toBe(groceries)
    const mine = await createTransaction(api, account, { payeeName: 'REWE Berlin', categoryId: dining })
    expect(mine.categoryId).toBe(dining)
    const bulk = await bulkCreate(api, [
      {
        accountId: account,
        date: '2025-03-11',
        amountCents: -100,
        payeeName: 'rewe to go',
        importedId: 'x1',
      },
      { accountId: account, date: '2025-03-11', amountCents: -100, payeeName: 'Bakery', importedId: 'x2' },
    ])
    expect(bulk.items.map((t: any) => t.categoryId)).toEqual([groceries, null])
    const why = expectStatus(await api.get(`${H}/rule-applications?transactionId=${row.id}`), 200)
    expect(why.items).toEqual([
      {
        id: expect.any(String),
        ruleId: rule.id,
        transactionId: row.id,
        trigger: 'auto',
        changes: { categoryId: { from: null, to: groceries } },
        appliedAt: expect.any(String),
      },
    ])
    expect(expectStatus(await api.get(`${H}/rule-applications?ruleId=${rule.id}`), 200).items).toHaveLength(2)
  })

  it('previews exactly what apply then changes, and apply-all fills the rest by priority', async () => {
    const { api, groceries, dining, account } = await setup()
    const rows = []
    for (const payeeName of ['REWE', 'Pizza Roma', 'Rewe City'])
      rows.push(await createTransaction(api, account, { payeeName }))
    const rule = expectStatus(
      await api.post(`${H}/rules`, {
        name: 'REWE',
        predicate: payeeContains('rewe'),
        action: { setCategoryId: groceries },
      }),
      201,
    )
    const preview = expectStatus(await api.post(`${H}/rules/${rule.id}/preview`), 200)
    expect(preview).toMatchObject({
      examinedCount: 3,
      changedCount: 2,
      applicationCount: 2,
      truncated: false,
    })
    expect(expectStatus(await api.get(`${H}/transactions/${rows[0].id}`), 200).categoryId).toBeNull()
    const applied = expectStatus(await api.post(`${H}/rules/${rule.id}/apply`), 200)
    expect(applied).toEqual(preview)
    expect(expectStatus(await api.get(`${H}/transactions/${rows[2].id}`), 200).categoryId).toBe(groceries)
    await api.post(`${H}/rules`, {
      name: 'Pizza',
      predicate: payeeContains('pizza'),
      action: { setCategoryId: dining },
      priority: 2,
    })
    await api.post(`${H}/rules`, {
      name: 'Also pizza',
      predicate: payeeContains('roma'),
      action: { setCategoryId: groceries },
      priority: 5,
    })
    const all = expectStatus(await api.post(`${H}/rules/apply-all`, {}), 200)
    expect(all).toMatchObject({ changedCount: 1 })
    expect(expectStatus(await api.get(`${H}/transactions/${rows[1].id}`), 200).categoryId).toBe(dining)
    expectProblem(await api.post(`${H}/rules/${ulid()}/apply`), 404, 'NOT_FOUND')
  })

  it('needs read:rules to read and preview, write:rules to change and apply', async () => {
    const owner = await setup()
    const rule = expectStatus(
      await owner.api.post(`${H}/rules`, {
        name: 'R',
        predicate: payeeContains('x'),
        action: { appendMemo: '!' },
      }),
      201,
    )
    const reader = apiClient(server.url, await server.issueKey(owner.userId, ['read:rules']))
    expectStatus(await reader.get(`${H}/rules`), 200)
    expectStatus(await reader.post(`${H}/rules/${rule.id}/preview`), 200)
    expectProblem(await reader.post(`${H}/rules/${rule.id}/apply`), 403, 'INSUFFICIENT_SCOPE')
    expectProblem(await reader.post(`${H}/rules/apply-all`), 403, 'INSUFFICIENT_SCOPE')
    expectProblem(await reader.patch(`${H}/rules/${rule.id}`, { enabled: false }), 403, 'INSUFFICIENT_SCOPE')
    const writer = apiClient(server.url, await server.issueKey(owner.userId, ['write:rules']))
    expectProblem(await writer.get(`${H}/rules`), 403, 'INSUFFICIENT_SCOPE')
  })

  it('learns a rule from three hand-made rows of a payee, lists it as learned, and a user edit makes it theirs', async () => {
    const { api } = await server.newOwner()
    const group = expectStatus(await api.post(`${H}/category-groups`, { name: 'Everyday' }), 201)
    const dining = expectStatus(await api.post(`${H}/categories`, { groupId: group.id, name: 'Dining' }), 201)
    const account = expectStatus(await api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' }), 201)
    const row = (categoryId?: string) => ({
      accountId: account.id,
      date: '2025-06-01',
      amountCents: -1200,
      payeeName: 'Pizza Roma',
      ...(categoryId && { categoryId }),
    })
    for (let i = 0; i < 3; i++) expectStatus(await api.post(`${H}/transactions`, row(dining.id)), 201)
    const [rule] = expectStatus(await api.get(`${H}/rules`), 200).items
    expect(rule).toMatchObject({
      name: 'Pizza Roma (learned)',
      learned: true,
      action: { setCategoryId: dining.id },
    })
    expect(expectStatus(await api.post(`${H}/transactions`, row()), 201).categoryId).toBe(dining.id)
    const adopted = expectStatus(await api.patch(`${H}/rules/${rule.id}`, { enabled: false }), 200)
    expect(adopted).toMatchObject({ learned: false, enabled: false })
  })

  it('learns the same rule whichever key categorizes, a key without write:rules included', async () => {
    const owner = await server.newOwner()
    const { api } = owner
    const group = expectStatus(await api.post(`${H}/category-groups`, { name: 'Everyday' }), 201)
    const dining = expectStatus(await api.post(`${H}/categories`, { groupId: group.id, name: 'Dining' }), 201)
    const account = expectStatus(await api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' }), 201)
    const bookkeeper = apiClient(
      server.url,
      await server.issueKey(owner.userId, ['read:transactions', 'write:transactions']),
    )
    const row = {
      accountId: account.id,
      date: '2025-06-01',
      amountCents: -1200,
      payeeName: 'Pizza Roma',
      categoryId: dining.id,
    }
    for (let i = 0; i < 3; i++) expectStatus(await bookkeeper.post(`${H}/transactions`, row), 201)
    const { items } = expectStatus(await api.get(`${H}/rules`), 200)
    expect(items).toMatchObject([
      { name: 'Pizza Roma (learned)', learned: true, action: { setCategoryId: dining.id } },
    ])
    const { categoryId: _, ...bare } = row
    expect(expectStatus(await bookkeeper.post(`${H}/transactions`, bare), 201).categoryId).toBe(dining.id)
  })

  it('keeps the bank’s raw payee text beside the final payee, and a pre-stage rule on it names the payee', async () => {
    const { api, account, groceries } = await setup()
    const amazon = expectStatus(await api.post(`${H}/payees`, { name: 'Amazon' }), 201)
    expectStatus(
      await api.post(`${H}/rules`, {
        name: 'Amazon',
        predicate: {
          combinator: 'all',
          conditions: [{ field: 'imported_payee', op: 'contains', value: 'amzn' }],
        },
        action: { setPayeeId: amazon.id, setCategoryId: groceries },
      }),
      201,
    )
    const { items } = await bulkCreate(api, [
      {
        accountId: account,
        date: '2025-06-01',
        amountCents: -1299,
        payeeName: 'AMZN Mktp US*2K4LM',
        importedId: 'x1',
      },
    ])
    expect(items[0]).toMatchObject({
      payeeId: amazon.id,
      categoryId: groceries,
      importedPayee: 'AMZN Mktp US*2K4LM',
    })
    const read = expectStatus(await api.get(`${H}/transactions/${items[0].id}`), 200)
    expect(read.importedPayee).toBe('AMZN Mktp US*2K4LM')
    const payees = expectStatus(await api.get(`${H}/payees`), 200).items.map((p: any) => p.name)
    expect(payees).toEqual(['Amazon'])
    const typed = expectStatus(
      await api.post(`${H}/transactions`, {
        accountId: account,
        date: '2025-06-01',
        amountCents: -5,
        payeeName: 'Kiosk',
      }),
      201,
    )
    expect(typed.importedPayee).toBeNull()
  })
})
