import { describe, expect, it } from 'vitest'
import { type TestMember, useTestServer } from '../src/index.ts'
import { chat, relativeDates } from './assistant-fixture.ts'
import { createCategory, createGroup, expectProblem, expectStatus, H } from './catalog-fixture.ts'
import { createAccount, createTransaction } from './ledger-fixture.ts'

const server = useTestServer()
const capped = useTestServer({
  ai: {
    provider: { kind: 'offline' },
    caps: {
      userDailyRequests: 2,
      userDailyTokens: 0,
      householdMonthlyRequests: 0,
      householdMonthlyTokens: 0,
    },
  },
})
const AI = `${H}/ai`
const d = relativeDates()

/** A household with consent, an account, three categories and a few rows last month and this. */
async function seeded(member?: TestMember) {
  const owner = member ?? (await server.newOwner())
  const { api } = owner
  expectStatus(await api.post(`${AI}/consent`), 200)
  const account = await createAccount(api, { name: 'Everyday Checking' })
  const group = await createGroup(api, 'Living')
  const groceries = await createCategory(api, group.id, 'Groceries')
  const dining = await createCategory(api, group.id, 'Dining Out')
  const subs = await createCategory(api, group.id, 'Subscriptions')
  const incomeGroup = await createGroup(api, 'Income', { isIncome: true })
  const salary = await createCategory(api, incomeGroup.id, 'Salary')
  await createTransaction(api, account.id, {
    date: d.lastMonthDay,
    amountCents: -4520,
    payeeName: 'FreshMart',
    categoryId: groceries.id,
  })
  await createTransaction(api, account.id, {
    date: d.lastMonthDay,
    amountCents: -1000,
    payeeName: 'FreshMart',
    categoryId: groceries.id,
  })
  await createTransaction(api, account.id, {
    date: d.lastMonthDay,
    amountCents: -3000,
    payeeName: 'Bistro',
    categoryId: dining.id,
  })
  await createTransaction(api, account.id, { date: d.lastMonthDay, amountCents: -1599, payeeName: 'Netflix' })
  await createTransaction(api, account.id, { date: d.thisMonthDay, amountCents: -1599, payeeName: 'Netflix' })
  await createTransaction(api, account.id, {
    date: d.thisMonthDay,
    amountCents: 100000,
    payeeName: 'Employer',
    categoryId: salary.id,
  })
  return { ...owner, account, groceries, dining, subs }
}

const ask = (api: TestMember['api'], message: string, extra = {}) => chat(server.url, api, message, extra)

describe('assistant consent', () => {
  it('refuses chat with 403 AI_CONSENT_REQUIRED until granted, and again at once after withdrawal', async () => {
    const { api } = await server.newOwner()
    const before = await ask(api, 'help')
    expect(before.status).toBe(403)
    expect(before.body.code).toBe('AI_CONSENT_REQUIRED')
    expect(expectStatus(await api.get(`${AI}/consent`), 200)).toMatchObject({
      purpose: 'ai_processing',
      granted: false,
    })
    const granted = expectStatus(await api.post(`${AI}/consent`), 200)
    expect(granted).toMatchObject({ granted: true, grantedAt: expect.any(String) })
    expect(expectStatus(await api.post(`${AI}/consent`), 200).grantedAt).toBe(granted.grantedAt)
    const ok = await ask(api, 'help')
    expect(ok.status).toBe(201)
    expect(ok.contentType).toMatch(/^text\/event-stream/)
    expect(expectStatus(await api.delete(`${AI}/consent`), 200).granted).toBe(false)
    expect((await ask(api, 'help')).body.code).toBe('AI_CONSENT_REQUIRED')
  })
})

describe('assistant chat stream', () => {
  it('streams documented events and stores the turn', async () => {
    const { api } = await seeded()
    const answer = await ask(api, 'help')
    const names = answer.events.map((e) => e.event)
    expect(names[0]).toBe('turn.started')
    expect(names).toContain('message.delta')
    expect(names.at(-1)).toBe('message.completed')
    const { conversationId, messageId } = answer.events[0]!.data
    const done = answer.events.at(-1)!.data
    expect(done).toMatchObject({ messageId, conversationId, status: 'complete', content: answer.text })
    const conv = expectStatus(await api.get(`${AI}/conversations/${conversationId}`), 200)
    expect(conv.messages.map((m: any) => [m.role, m.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'complete'],
    ])
    expect(conv.messages[1].content).toBe(answer.text)
  })

  it('refuses bad input without writing: empty, too long, unknown field, Idempotency-Key', async () => {
    const { api } = await seeded()
    expect((await ask(api, '   ')).body.code).toBe('VALIDATION_FAILED')
    expect((await ask(api, 'x'.repeat(4001))).body.code).toBe('VALIDATION_FAILED')
    expect((await ask(api, 'hi', { model: 'x' })).body.code).toBe('VALIDATION_FAILED')
    const keyed = await chat(server.url, api, 'help', {}, { 'idempotency-key': 'k1' })
    expect(keyed.status).toBe(400)
    expect(keyed.body.code).toBe('IDEMPOTENCY_KEY_NOT_SUPPORTED')
    expect(expectStatus(await api.get(`${AI}/conversations`), 200).items).toEqual([])
  })

  it('leaves a consistent turn when the client disconnects mid-stream', async () => {
    const { api } = await seeded()
    const abort = new AbortController()
    const res = await fetch(`${server.url}${AI}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'spending by category this year' }),
      signal: abort.signal,
    })
    expect(res.status).toBe(201)
    const reader = res.body!.getReader()
    await reader.read()
    abort.abort()
    let statuses: string[] = []
    for (let i = 0; i < 50; i++) {
      const list = expectStatus(await api.get(`${AI}/conversations`), 200)
      const conv = expectStatus(await api.get(`${AI}/conversations/${list.items[0].id}`), 200)
      statuses = conv.messages.map((m: any) => m.status)
      if (!statuses.includes('streaming')) break
      await new Promise((r) => setTimeout(r, 20))
    }
    expect(statuses[0]).toBe('complete')
    expect(['complete', 'interrupted']).toContain(statuses[1])
  })
})

describe('offline intents answer with the engine figures', () => {
  it('answers spending by category, payee and over a period, with typos', async () => {
    const { api, groceries } = await seeded()
    const cell = expectStatus(await api.get(`${H}/budgets/${d.lastMonth}/categories/${groceries.id}`), 200)
    expect(cell.activityCents).toBe('-5520')
    const a = await ask(api, 'How much did we spend on grocries last month?')
    expect(a.text).toContain('$55.20')
    expect(a.text).toContain('Groceries')
    expect(a.events.map((e) => e.event)).toEqual(expect.arrayContaining(['tool.call', 'tool.result']))
    expect((await ask(api, 'what did we pay netflx last month')).text).toContain('$15.99')
    const byCat = await ask(api, 'spending by category last month')
    expect(byCat.text).toContain('$101.19')
    expect(byCat.text).toMatch(/Dining Out: \$30\.00/)
    expect((await ask(api, 'How much did I earn this month?')).text).toContain('$1,000.00')
  })

  it('answers balances, net worth, largest transactions, budget status and changes', async () => {
    const { api, account } = await seeded()
    const balance = expectStatus(await api.get(`${H}/accounts/${account.id}`), 200).balanceCents
    expect(balance).toBe(String(100000 - 4520 - 1000 - 3000 - 1599 - 1599))
    expect((await ask(api, 'what are my account balances?')).text).toContain('Everyday Checking: $882.82')
    expect((await ask(api, "what's our net worth")).text).toContain('$882.82')
    const largest = await ask(api, 'biggest purchases last month')
    expect(largest.text.indexOf('$45.20')).toBeLessThan(largest.text.indexOf('$30.00'))
    expect((await ask(api, `how much is left in dining out in ${monthName(d.lastMonth)}`)).text).toMatch(
      /overspent by \$30\.00/,
    )
    const changed = await ask(api, 'what changed since last month?')
    expect(changed.text).toContain('$15.99')
    expect(changed.text).toContain('$101.19')
  })

  it('says what it did not understand with the closest questions, and declines what is out of scope', async () => {
    const { api } = await seeded()
    const unknown = await ask(api, 'llamas purple seventeen')
    expect(unknown.text).toContain('did not understand')
    expect(unknown.text).toContain('•')
    const out = await ask(api, 'sing me a song about llamas')
    expect(out.text).toContain('not something I can help with')
    expect(out.text).toContain('Move 50 from Dining Out to Groceries')
  })
})

function monthName(month: string): string {
  const names = [
    'January',
    'February',
    'March',
    'April',
    'May',
    'June',
    'July',
    'August',
    'September',
    'October',
    'November',
    'December',
  ]
  return `${names[Number(month.slice(5)) - 1]} ${month.slice(0, 4)}`
}

describe('proposed actions', () => {
  async function proposeMove(api: TestMember['api']) {
    const answer = await ask(api, 'move 50 from Dining Out to Groceries this month')
    const proposed = answer.events.find((e) => e.event === 'action.proposed')
    expect(proposed, answer.text).toBeDefined()
    return proposed!.data.action
  }

  it('moves budget money only once confirmed, exactly once, with a preview of the cells', async () => {
    const { api, groceries, dining } = await seeded()
    const action = await proposeMove(api)
    expect(action).toMatchObject({
      operation: 'budgets.move',
      status: 'pending',
      args: { amountCents: 5000 },
    })
    expect(action.preview.cells[1]).toMatchObject({
      categoryId: groceries.id,
      assignedCents: { before: '0', after: '5000' },
    })
    const cell = async (id: string) =>
      expectStatus(await api.get(`${H}/budgets/${d.thisMonth}/categories/${id}`), 200)
    expect((await cell(groceries.id)).assignedCents).toBe('0')
    expect(expectStatus(await api.get(`${AI}/actions`), 200).items.map((a: any) => a.id)).toEqual([action.id])
    const [one, two] = await Promise.all([
      api.post(`${AI}/actions/${action.id}/confirm`),
      api.post(`${AI}/actions/${action.id}/confirm`),
    ])
    expect([one.status, two.status].sort(), JSON.stringify([one.body, two.body])).toEqual([200, 409])
    expect((await cell(groceries.id)).assignedCents).toBe('5000')
    expect((await cell(dining.id)).assignedCents).toBe('-5000')
    expectProblem(await api.post(`${AI}/actions/${action.id}/cancel`), 409, 'ACTION_NOT_PENDING')
    expect(expectStatus(await api.get(`${AI}/actions`), 200).items).toEqual([])
  })

  it('changes nothing when cancelled', async () => {
    const { api, groceries } = await seeded()
    const action = await proposeMove(api)
    expect(expectStatus(await api.post(`${AI}/actions/${action.id}/cancel`), 200).status).toBe('cancelled')
    expectProblem(await api.post(`${AI}/actions/${action.id}/confirm`), 409, 'ACTION_NOT_PENDING')
    const cell = expectStatus(await api.get(`${H}/budgets/${d.thisMonth}/categories/${groceries.id}`), 200)
    expect(cell.assignedCents).toBe('0')
  })

  it('expires an hour after it is proposed: confirm and cancel answer 409 ACTION_EXPIRED', async () => {
    const { api, groceries } = await seeded()
    const action = await proposeMove(api)
    expect(Date.parse(action.expiresAt) - Date.parse(action.createdAt)).toBe(60 * 60 * 1000)
    // An hour passes: the row's deadline is moved into the past, as the clock would.
    await server.store.db
      .updateTable('ai_actions')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', action.id)
      .execute()
    expectProblem(await api.post(`${AI}/actions/${action.id}/confirm`), 409, 'ACTION_EXPIRED')
    expectProblem(await api.post(`${AI}/actions/${action.id}/cancel`), 409, 'ACTION_EXPIRED')
    expect(expectStatus(await api.get(`${AI}/actions`), 200).items).toEqual([])
    const cell = expectStatus(await api.get(`${H}/budgets/${d.thisMonth}/categories/${groceries.id}`), 200)
    expect(cell.assignedCents).toBe('0')
  })

  it("runs with the confirming key's permissions now, and hides another member's action", async () => {
    const owner = await seeded()
    const action = await proposeMove(owner.api)
    const weak = await server.issueKey(owner.userId, ['ai:chat', 'read:budgets'])
    const weakApi = { ...owner.api, token: weak }
    const refused = await fetch(`${server.url}${AI}/actions/${action.id}/confirm`, {
      method: 'POST',
      headers: { authorization: `Bearer ${weak}` },
    })
    expect(refused.status).toBe(403)
    expect(weakApi.token).toBe(weak)
    const other = await server.newMember(owner)
    expectProblem(await other.api.post(`${AI}/actions/${action.id}/confirm`), 404, 'NOT_FOUND')
    expect(expectStatus(await owner.api.get(`${AI}/actions`), 200).items).toHaveLength(1)
  })

  it('categorizes every transaction of a payee, and creates a rule, once confirmed', async () => {
    const { api, subs } = await seeded()
    const answer = await ask(api, 'Categorize every Netflix transaction as Subscriptions')
    const action = answer.events.find((e) => e.event === 'action.proposed')!.data.action
    expect(action.operation).toBe('transactions.bulkUpdate')
    expect(action.preview.transactionCount).toBe(2)
    expectStatus(await api.post(`${AI}/actions/${action.id}/confirm`), 200)
    const rows = expectStatus(await api.get(`${H}/transactions?categoryId=${subs.id}`), 200).items
    expect(rows).toHaveLength(2)
    const rule = (await ask(api, 'create a rule for Netflix as Subscriptions')).events.find(
      (e) => e.event === 'action.proposed',
    )!.data.action
    expect(rule.operation).toBe('rules.create')
    expect(expectStatus(await api.get(`${H}/rules`), 200).items ?? []).toHaveLength(0)
    expectStatus(await api.post(`${AI}/actions/${rule.id}/confirm`), 200)
    const rules = expectStatus(await api.get(`${H}/rules`), 200)
    expect((rules.items ?? rules).map((r: any) => r.action.setCategoryId)).toEqual([subs.id])
  })
})

describe('conversations', () => {
  it('are visible to their creator and owners only, and list, rename, stop and delete', async () => {
    const owner = await seeded()
    const member = await server.newMember(owner)
    expectStatus(await member.api.post(`${AI}/consent`), 200)
    const mine = (await ask(member.api, 'help')).events[0]!.data.conversationId
    const other = await server.newMember(owner)
    expectProblem(await other.api.get(`${AI}/conversations/${mine}`), 404, 'NOT_FOUND')
    expectProblem(await other.api.patch(`${AI}/conversations/${mine}`, { title: 'x' }), 404, 'NOT_FOUND')
    expect(expectStatus(await other.api.get(`${AI}/conversations`), 200).items).toEqual([])
    expectStatus(await owner.api.get(`${AI}/conversations/${mine}`), 200)
    expect(
      expectStatus(await member.api.patch(`${AI}/conversations/${mine}`, { title: 'Budget talk' }), 200)
        .title,
    ).toBe('Budget talk')
    expect(
      expectStatus(await member.api.get(`${AI}/conversations?q=budget`), 200).items.map((c: any) => c.id),
    ).toEqual([mine])
    expect(expectStatus(await member.api.get(`${AI}/conversations?q=zzz`), 200).items).toEqual([])
    // Continue, then stop: no further turns.
    expect((await ask(member.api, 'help', { conversationId: mine })).status).toBe(201)
    expect((await ask(other.api, 'help', { conversationId: mine })).status).toBe(403)
    expectStatus(await member.api.post(`${AI}/conversations/${mine}/stop`), 200)
    expect((await ask(member.api, 'help', { conversationId: mine })).body.code).toBe('CONVERSATION_STOPPED')
    expect(expectStatus(await member.api.get(`${AI}/conversations/${mine}`), 200).messages).toHaveLength(4)
    expect((await member.api.delete(`${AI}/conversations/${mine}`)).status).toBe(204)
    expectProblem(await member.api.get(`${AI}/conversations/${mine}`), 404, 'NOT_FOUND')
  })

  it('pages by updatedAt with a cursor, and bulk-deletes only your own', async () => {
    const owner = await seeded()
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push((await ask(owner.api, 'help')).events[0]!.data.conversationId)
    const first = expectStatus(await owner.api.get(`${AI}/conversations?limit=2`), 200)
    expect(first.items.map((c: any) => c.id)).toEqual([ids[2], ids[1]])
    const second = expectStatus(
      await owner.api.get(`${AI}/conversations?limit=2&cursor=${first.nextCursor}`),
      200,
    )
    expect(second.items.map((c: any) => c.id)).toEqual([ids[0]])
    expect(second.nextCursor).toBeNull()
    expectProblem(await owner.api.get(`${AI}/conversations?cursor=nope`), 400, 'INVALID_CURSOR')
    const member = await server.newMember(owner)
    expectStatus(await member.api.post(`${AI}/consent`), 200)
    const theirs = (await ask(member.api, 'help')).events[0]!.data.conversationId
    expect(
      expectStatus(await owner.api.post(`${AI}/conversations/bulk-delete`, { ids: [ids[0], theirs] }), 200)
        .deletedCount,
    ).toBe(1)
    expect(
      expectStatus(await owner.api.post(`${AI}/conversations/bulk-delete`, { all: true }), 200).deletedCount,
    ).toBe(2)
    expectStatus(await member.api.get(`${AI}/conversations/${theirs}`), 200)
    expectProblem(await owner.api.post(`${AI}/conversations/bulk-delete`, {}), 400, 'VALIDATION_FAILED')
  })
})

describe('tools and usage', () => {
  it('lists tools by role and key scopes', async () => {
    const owner = await server.newOwner()
    const all = expectStatus(await owner.api.get(`${AI}/tools`), 200)
    expect(all.count).toBe(all.names.length)
    expect(all.names).toEqual(expect.arrayContaining(['budgets_move', 'budgets_reset', 'reports_spending']))
    expect(all.names.some((n: string) => n.startsWith('ai'))).toBe(false)
    const member = await server.newMember(owner)
    expect(expectStatus(await member.api.get(`${AI}/tools`), 200).names).not.toContain('budgets_reset')
    const narrow = await server.newMember(owner, 'member', ['ai:tools', 'read:budgets'])
    const names = expectStatus(await narrow.api.get(`${AI}/tools`), 200).names
    expect(names).toContain('budgets_get')
    expect(names).not.toContain('budgets_move')
    expect(names).not.toContain('reports_spending')
  })

  it('reports usage and answers 429 AI_CAP_REACHED with Retry-After past the daily cap', async () => {
    const { api } = await capped.newOwner()
    expectStatus(await api.post(`${AI}/consent`), 200)
    expect((await chat(capped.url, api, 'help')).status).toBe(201)
    expect((await chat(capped.url, api, 'help')).status).toBe(201)
    const usage = expectStatus(await api.get(`${AI}/usage`), 200)
    expect(usage.user).toMatchObject({ requests: 2, requestCap: 2, tokenCap: null })
    expect(usage.user.tokens).toBeGreaterThan(0)
    expect(usage.household).toMatchObject({ requests: 2, requestCap: null })
    const res = await fetch(`${capped.url}${AI}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'help' }),
    })
    expect(res.status).toBe(429)
    expect((await res.json()).code).toBe('AI_CAP_REACHED')
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
  })
})
