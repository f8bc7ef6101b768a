import { describe, expect, it } from 'vitest'
import { type ApiClient, apiClient, useTestServer } from '../src/index.ts'
import { createCategory, createGroup, expectProblem, expectStatus, H } from './catalog-fixture.ts'

const server = useTestServer()

/** A household with a checking account and two spending categories. */
async function household(api: ApiClient) {
  const group = await createGroup(api, 'Everyday')
  const food = await createCategory(api, group.id, 'Food')
  const fun = await createCategory(api, group.id, 'Fun')
  const checking = expectStatus(await api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' }), 201)
  const row = async (amountCents: number, extra: Record<string, unknown> = {}) =>
    expectStatus(
      await api.post(`${H}/transactions`, {
        accountId: checking.id,
        amountCents,
        date: '2024-05-02',
        ...extra,
      }),
      201,
    )
  return { food, fun, checking, row }
}

const read = async (api: ApiClient, query = '') => expectStatus(await api.get(`${H}/activity${query}`), 200)
const undo = (api: ApiClient, entryId?: string) => api.post(`${H}/activity/undo`, entryId ? { entryId } : {})

describe('activity over HTTP', () => {
  it("records a REST edit with the member's key, and each changed field before and after in the household currency", async () => {
    const { api, userId } = await server.newOwner()
    const h = await household(api)
    const t = await h.row(-1200, { memo: 'bread' })
    expectStatus(
      await api.patch(`${H}/transactions/${t.id}`, { amountCents: -1550, memo: 'bread, milk' }),
      200,
    )

    const { items, nextCursor } = await read(api, `?transactionId=${t.id}`)
    expect(nextCursor).toBeNull()
    expect(items.map((e: any) => e.operation)).toEqual(['transactions.update', 'transactions.create'])
    const [edit] = items
    expect(edit).toMatchObject({
      memberId: userId,
      actor: { kind: 'key', label: 'Owner with the key "test key"' },
      undoesEntryId: null,
      undoneByEntryId: null,
    })
    // The row, and its account's balance, which follows it.
    expect(edit.changes).toEqual([
      expect.objectContaining({
        resource: 'transaction',
        id: t.id,
        action: 'updated',
        fields: expect.arrayContaining([
          { field: 'amountCents', before: '-1200', after: '-1550', text: 'amountCents -$12.00 → -$15.50' },
          { field: 'memo', before: 'bread', after: 'bread, milk', text: 'memo "bread" → "bread, milk"' },
        ]),
      }),
      expect.objectContaining({
        resource: 'account',
        id: h.checking.id,
        fields: [
          { field: 'balanceCents', before: '-1200', after: '-1550', text: 'balanceCents -$12.00 → -$15.50' },
        ],
      }),
    ])
    expect(edit.summary).toMatch(/^updated transaction: .*; updated account: balanceCents/)
  })

  it('filters by member, operation, account, period, and one budget cell, and pages with a cursor', async () => {
    const owner = await server.newOwner()
    const member = await server.newMember(owner, 'member')
    const h = await household(owner.api)
    await owner.api.patch(`${H}/budgets/2024-05/categories/${h.food.id}`, { assignedCents: 10_000 })
    await member.api.patch(`${H}/budgets/2024-06/categories/${h.food.id}`, { assignedCents: 500 })
    await member.api.post(`${H}/budgets/2024-05/move`, {
      fromCategoryId: h.food.id,
      toCategoryId: h.fun.id,
      amountCents: 4_000,
    })

    const cell = await read(owner.api, `?categoryId=${h.food.id}&month=2024-05`)
    expect(cell.items.map((e: any) => e.operation)).toEqual(['budgets.move', 'budgets.assign'])
    const byMember = await read(owner.api, `?memberId=${member.userId}`)
    expect(byMember.items.map((e: any) => e.operation)).toEqual(['budgets.move', 'budgets.assign'])
    expect((await read(owner.api, '?operation=accounts.create')).items).toHaveLength(1)
    expect((await read(owner.api, `?accountId=${h.checking.id}`)).items.map((e: any) => e.operation)).toEqual(
      ['accounts.create'],
    )
    expect((await read(owner.api, '?dateTo=2000-01-01')).items).toEqual([])
    const today = new Date().toISOString().slice(0, 10)
    const all = await read(owner.api, `?dateFrom=${today}&limit=100`)

    const seen: string[] = []
    let cursor: string | null = null
    do {
      const page: any = await read(owner.api, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`)
      seen.push(...page.items.map((e: any) => e.id))
      cursor = page.nextCursor
    } while (cursor)
    expect(seen).toEqual(all.items.map((e: any) => e.id))
    expectProblem(await owner.api.get(`${H}/activity?cursor=nonsense`), 400, 'INVALID_CURSOR')
    for (const query of ['operation=a%00b', 'dateFrom=2024-13-01', 'month=2024-5', 'limit=0', 'colour=red']) {
      expectProblem(await owner.api.get(`${H}/activity?${query}`), 400, 'VALIDATION_FAILED')
    }
    expectProblem(
      await owner.api.post(`${H}/activity/undo`, { entryId: 'x\u0000' }),
      400,
      'VALIDATION_FAILED',
    )
  })

  it('shows a narrow key only the entries whose rows its scopes may read', async () => {
    const owner = await server.newOwner()
    const h = await household(owner.api)
    await h.row(-500)
    await owner.api.patch(`${H}/budgets/2024-05/categories/${h.food.id}`, { assignedCents: 700 })
    const narrow = await server.newMember(owner, 'member', ['read:budgets'])
    const { items } = await read(narrow.api)
    expect(items.map((e: any) => e.operation)).toEqual(['budgets.assign'])
    expect((await read(narrow.api, `?accountId=${h.checking.id}`)).items).toEqual([])
  })

  it('undoes only with the scope the change needed, and refuses entries that changed nothing it can restore', async () => {
    const owner = await server.newOwner()
    const h = await household(owner.api)
    await h.row(-400)
    const reader = apiClient(
      server.url,
      await server.issueKey(owner.userId, ['read:transactions', 'read:accounts']),
    )
    expectProblem(await undo(reader), 403, 'INSUFFICIENT_SCOPE')
    const [hook] = (await read(owner.api, '?operation=households.create')).items
    expectProblem(await undo(owner.api, hook.id), 409, 'NOT_UNDOABLE')
    expectProblem(await undo(owner.api, '01ARZ3NDEKTSV4RRFFQ69G5FAV'), 404, 'NOT_FOUND')
  })

  it('undoes and redoes a budget move', async () => {
    const { api } = await server.newOwner()
    const h = await household(api)
    await api.patch(`${H}/budgets/2024-05/categories/${h.food.id}`, { assignedCents: 10_000 })
    await api.post(`${H}/budgets/2024-05/move`, {
      fromCategoryId: h.food.id,
      toCategoryId: h.fun.id,
      amountCents: 4_000,
    })
    const assigned = async () => {
      const month = expectStatus(await api.get(`${H}/budgets/2024-05`), 200)
      return month.assignedCents
    }
    const food = async () =>
      expectStatus(await api.get(`${H}/budgets/2024-05/categories/${h.food.id}`), 200).assignedCents

    const undone = expectStatus(await undo(api), 200)
    expect(undone).toMatchObject({ undoneOperation: 'budgets.move' })
    expect(await food()).toBe('10000')
    expect(await assigned()).toBe('10000')
    expectStatus(await undo(api, undone.entryId), 200)
    expect(await food()).toBe('6000')
    const { items } = await read(api, '?limit=3')
    expect(items.map((e: any) => e.operation)).toEqual(['activity.undo', 'activity.undo', 'budgets.move'])
    expect(items[1].undoesEntryId).toBe(items[2].id)
    expect(items[2].undoneByEntryId).toBe(items[1].id)
    expect(items[0].undoesEntryId).toBe(items[1].id)
  })

  it('undoes a transaction edit and a delete, keeping the balance right', async () => {
    const { api } = await server.newOwner()
    const h = await household(api)
    const t = await h.row(-1000)
    const balance = async () =>
      expectStatus(await api.get(`${H}/accounts/${h.checking.id}`), 200).balanceCents ??
      expectStatus(await api.get(`${H}/accounts/${h.checking.id}`), 200).currentBalanceCents
    const before = await balance()
    expectStatus(await api.patch(`${H}/transactions/${t.id}`, { amountCents: -7000 }), 200)
    // A later row on the same account moves its balance, which does not stand in the undo's way.
    const later = await h.row(-5)
    expectStatus(await undo(api, (await read(api, `?transactionId=${t.id}&limit=1`)).items[0].id), 200)
    expect(expectStatus(await api.get(`${H}/transactions/${t.id}`), 200).amountCents).toBe('-1000')
    expect(await balance()).toBe(String(BigInt(before) - 5n))
    expect((await api.delete(`${H}/transactions/${later.id}`)).status).toBe(204)
    expect(await balance()).toBe(before)
    expectStatus(await api.patch(`${H}/transactions/${t.id}`, { amountCents: -7000 }), 200)
    expectStatus(await undo(api), 200)
    expect(expectStatus(await api.get(`${H}/transactions/${t.id}`), 200).amountCents).toBe('-1000')
    expect(await balance()).toBe(before)

    expect((await api.delete(`${H}/transactions/${t.id}`)).status).toBe(204)
    expectProblem(await api.get(`${H}/transactions/${t.id}`), 404, 'NOT_FOUND')
    expectStatus(await undo(api), 200)
    expect(expectStatus(await api.get(`${H}/transactions/${t.id}`), 200).amountCents).toBe('-1000')
    expect(await balance()).toBe(before)
  })

  it('undoes a bulk categorize in one entry', async () => {
    const { api } = await server.newOwner()
    const h = await household(api)
    const rows = [await h.row(-100), await h.row(-200), await h.row(-300)]
    const ids = rows.map((r) => r.id)
    expectStatus(
      await api.patch(`${H}/transactions/bulk-update`, { ids, patch: { categoryId: h.food.id } }),
      200,
    )
    const result = expectStatus(await undo(api), 200)
    expect(result).toMatchObject({ undoneOperation: 'transactions.bulkUpdate' })
    for (const id of ids) {
      expect(expectStatus(await api.get(`${H}/transactions/${id}`), 200).categoryId).toBeNull()
    }
  })

  it("refuses an undo a later change depends on, naming it, and a member undoing another's change", async () => {
    const owner = await server.newOwner()
    const member = await server.newMember(owner, 'member')
    const h = await household(owner.api)
    const t = await h.row(-1000)
    expectStatus(await owner.api.patch(`${H}/transactions/${t.id}`, { memo: 'mine' }), 200)
    const [ownerEdit] = (await read(owner.api, `?transactionId=${t.id}&limit=1`)).items
    expectStatus(await member.api.patch(`${H}/transactions/${t.id}`, { memo: 'theirs' }), 200)
    const [memberEdit] = (await read(owner.api, `?transactionId=${t.id}&limit=1`)).items

    const refused = expectProblem(await undo(owner.api, ownerEdit.id), 409, 'UNDO_CONFLICT')
    expect(refused).toMatchObject({ laterEntryId: memberEdit.id, laterOperation: 'transactions.update' })
    expect(refused.detail).toContain(memberEdit.id)
    expectProblem(await undo(member.api, ownerEdit.id), 403, 'NOT_YOUR_CHANGE')
    expect(expectStatus(await owner.api.get(`${H}/transactions/${t.id}`), 200).memo).toBe('theirs')
    // An owner may undo anyone's change: the member's edit, then their own, which stands again.
    expectStatus(await undo(owner.api, memberEdit.id), 200)
    expectStatus(await undo(owner.api, ownerEdit.id), 200)
    expect(expectStatus(await owner.api.get(`${H}/transactions/${t.id}`), 200).memo).toBeNull()
  })
})
