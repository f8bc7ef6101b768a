import type { RunningServer } from '@hearth/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newOwner, startTestServer } from '../src/index.ts'
import { chat, relativeDates } from './assistant-fixture.ts'
import { createCategory, createGroup, expectStatus, H } from './catalog-fixture.ts'
import { type FakeOpenAi, startFakeOpenAi } from './fake-openai.ts'
import { createAccount, createTransaction } from './ledger-fixture.ts'

let fake: FakeOpenAi
let server: RunningServer
const AI = `${H}/ai`
const d = relativeDates()
const noCaps = {
  userDailyRequests: 0,
  userDailyTokens: 0,
  householdMonthlyRequests: 0,
  householdMonthlyTokens: 0,
}

beforeAll(async () => {
  fake = await startFakeOpenAi()
  server = await startTestServer({
    ai: {
      provider: { kind: 'openai-compatible', baseUrl: fake.url, model: 'fake', timeoutMs: 1500 },
      caps: noCaps,
    },
  })
})
afterAll(async () => {
  await server?.close()
  await fake?.close()
})

async function household() {
  const owner = await newOwner(server)
  const { api } = owner
  expectStatus(await api.post(`${AI}/consent`), 200)
  const account = await createAccount(api)
  const group = await createGroup(api, 'G')
  const food = await createCategory(api, group.id, 'Food')
  const fun = await createCategory(api, group.id, 'Fun')
  await createTransaction(api, account.id, { date: d.lastMonthDay, amountCents: -2500, categoryId: food.id })
  return { ...owner, food, fun }
}

const lastToolMessage = (messages: any[]) =>
  messages.at(-1)?.role === 'tool' ? String(messages.at(-1).content) : null

describe('the OpenAI-compatible provider against a loopback model', () => {
  it('streams text, runs tools the model calls, and sends refusals and malformed calls back to it', async () => {
    const { api, food } = await household()
    const period = { fromDate: `${d.lastMonth}-01`, toDate: `${d.lastMonth}-28` }
    let step = 0
    fake.script = (messages) => {
      step += 1
      if (step === 1)
        return { toolCalls: [{ name: 'reports_spending', arguments: '{"fromDate": "last month' }] }
      if (step === 2)
        return {
          toolCalls: [
            {
              name: 'reports_spending',
              arguments: JSON.stringify({ fromDate: 'yesterday', toDate: period.toDate }),
            },
          ],
        }
      if (step === 3)
        return {
          toolCalls: [
            {
              name: 'reports_spending',
              arguments: JSON.stringify({ ...period, categoryId: food.id, groupBy: 'none' }),
            },
          ],
        }
      const spent = JSON.parse(lastToolMessage(messages)!).spentCents
      return { text: `You spent ${spent} cents on Food.` }
    }
    const answer = await chat(server.url, api, 'how much on food last month?')
    expect(answer.status).toBe(201)
    expect(answer.text).toBe('You spent 2500 cents on Food.')
    const results = answer.events.filter((e) => e.event === 'tool.result').map((e) => e.data)
    expect(results.map((r) => r.ok)).toEqual([false, false, true])
    expect(results[1].error.code).toBe('VALIDATION_FAILED')
    // Each refusal went back to the model as the tool's output.
    const toolMessages = fake.requests.slice(1).map((r) => lastToolMessage(r.messages))
    expect(toolMessages[0]).toBeTruthy()
    expect(toolMessages[1]).toContain('VALIDATION_FAILED')
    expect(answer.events.at(-1)).toMatchObject({ event: 'message.completed', data: { tokens: 200 } })
    expect(expectStatus(await api.get(`${AI}/usage`), 200).user.tokens).toBe(200)
    expect(fake.requests[0].tools.length).toBe(expectStatus(await api.get(`${AI}/tools`), 200).count)
  })

  it('turns a write tool call into a pending action, never a change', async () => {
    const { api, food, fun } = await household()
    let step = 0
    fake.script = () =>
      ++step === 1
        ? {
            toolCalls: [
              {
                name: 'budgets_move',
                arguments: JSON.stringify({
                  month: d.thisMonth,
                  fromCategoryId: food.id,
                  toCategoryId: fun.id,
                  amountCents: 700,
                }),
              },
            ],
          }
        : { text: 'I prepared the move; confirm it in the app.' }
    const answer = await chat(server.url, api, 'move 7 from food to fun')
    const action = answer.events.find((e) => e.event === 'action.proposed')!.data.action
    expect(action).toMatchObject({ operation: 'budgets.move', status: 'pending' })
    const cell = async () =>
      expectStatus(await api.get(`${H}/budgets/${d.thisMonth}/categories/${fun.id}`), 200).assignedCents
    expect(await cell()).toBe('0')
    expectStatus(await api.post(`${AI}/actions/${action.id}/confirm`), 200)
    expect(await cell()).toBe('700')
  })

  it('ends the turn with an error event, nothing written, when the model times out or sends garbage', async () => {
    const { api } = await household()
    fake.script = () => ({ hang: true })
    const slow = await chat(server.url, api, 'hello?')
    expect(slow.status).toBe(201)
    expect(slow.events.at(-1)).toMatchObject({ event: 'error', data: { code: 'AI_PROVIDER_TIMEOUT' } })
    fake.script = () => ({ garbage: 'this is not a stream\n\n' })
    const bad = await chat(server.url, api, 'hello again')
    expect(bad.events.at(-1)?.event).toBe('error')
    const list = expectStatus(await api.get(`${AI}/conversations`), 200)
    const conv = expectStatus(await api.get(`${AI}/conversations/${list.items[0].id}`), 200)
    expect(conv.messages.at(-1)).toMatchObject({ role: 'assistant', status: 'failed' })
  })

  it('marks a turn interrupted when the client leaves while the model is still streaming, and stops the model', async () => {
    const { api, food, fun } = await household()
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    const before = 'I prepared the move, and '
    const after = 'this part is only sent after the client has gone.'
    let step = 0
    fake.script = () =>
      ++step === 1
        ? {
            toolCalls: [
              {
                name: 'budgets_move',
                arguments: JSON.stringify({
                  month: d.thisMonth,
                  fromCategoryId: food.id,
                  toCategoryId: fun.id,
                  amountCents: 300,
                }),
              },
            ],
          }
        : { held: { before, after, release: released } }
    const leave = new AbortController()
    const res = await fetch(`${server.url}${AI}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'move 3 from food to fun' }),
      signal: leave.signal,
    })
    expect(res.status).toBe(201)
    // Read until the model's first words arrive: the model holds the rest of its reply, so the
    // turn is certainly still running when the client goes away.
    const reader = res.body!.getReader()
    const decoder = new TextDecoder()
    let seen = ''
    while (!seen.includes('event: message.delta')) {
      const { done, value } = await reader.read()
      if (done) throw new Error(`the stream ended before any text: ${seen}`)
      seen += decoder.decode(value, { stream: true })
    }
    expect(seen).not.toContain('message.completed')
    leave.abort()
    // The server hangs up on the model; were it to keep listening, the model would now finish.
    for (let i = 0; i < 250 && fake.abandoned === 0; i++) await new Promise((r) => setTimeout(r, 20))
    expect(fake.abandoned).toBe(1)
    release()

    const list = expectStatus(await api.get(`${AI}/conversations`), 200)
    let messages: any[] = []
    for (let i = 0; i < 250; i++) {
      const conv = expectStatus(await api.get(`${AI}/conversations/${list.items[0].id}`), 200)
      messages = conv.messages
      if (messages.every((m) => m.status !== 'streaming')) break
      await new Promise((r) => setTimeout(r, 20))
    }
    expect(messages.map((m) => [m.role, m.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'interrupted'],
    ])
    // Stored as far as it went: the text the model sent before the client left, and the whole
    // tool round before it; nothing of what the model would have said after.
    expect(messages[1].content).toBe(before)
    const parts = messages[1].parts.map((p: any) => p.type)
    expect(parts).toEqual(['tool.call', 'action.proposed', 'tool.result'])
    // The proposed action is whole and pending, and changed nothing.
    const actions = expectStatus(await api.get(`${AI}/actions`), 200).items
    expect(actions).toHaveLength(1)
    expect(actions[0]).toMatchObject({ operation: 'budgets.move', status: 'pending' })
    expect(messages[1].parts.find((p: any) => p.type === 'action.proposed').actionId).toBe(actions[0].id)
    const cell = expectStatus(await api.get(`${H}/budgets/${d.thisMonth}/categories/${fun.id}`), 200)
    expect(cell.assignedCents).toBe('0')
    // Usage: the one request, and the tokens the provider reported for the step that finished
    // (the tool round, 50); the interrupted step never reported any.
    const usage = expectStatus(await api.get(`${AI}/usage`), 200)
    expect(usage.user).toMatchObject({ requests: 1, tokens: 50 })

    // The conversation goes on: the next turn completes, with the interrupted answer in its history.
    fake.script = () => ({ text: 'Still here.' })
    const next = await chat(server.url, api, 'are you there?', { conversationId: list.items[0].id })
    expect(next.events.at(-1)).toMatchObject({ event: 'message.completed', data: { status: 'complete' } })
    expect(fake.requests.at(-1).messages.map((m: any) => m.content)).toContain(before)
  })
})

describe('what a remote model is told, and the tools it gets', () => {
  it('a system prompt with the figures each tool answers, the tools of GET H/ai/tools with their descriptions, and the spending a tool returns', async () => {
    const { api } = await household()
    await createTransaction(api, (await createAccount(api, { name: 'Card' })).id, {
      date: d.lastMonthDay,
      amountCents: 500,
      payeeName: 'Refund',
      categoryId: (await createCategory(api, (await createGroup(api, 'H')).id, 'Shop')).id,
    })
    const period = { fromDate: `${d.lastMonth}-01`, toDate: `${d.lastMonth}-28` }
    // A scripted model: it reads the spending report, then says the net figure it was given.
    fake.script = (messages) => {
      const tool = lastToolMessage(messages)
      if (!tool) {
        return {
          toolCalls: [
            { name: 'reports_spending', arguments: JSON.stringify({ ...period, groupBy: 'none' }) },
          ],
        }
      }
      return { text: `You spent ${JSON.parse(tool).netSpentCents} cents, net of refunds.` }
    }
    const answer = await chat(server.url, api, 'how much did we spend last month?')
    const rest = expectStatus(
      await api.get(`${H}/reports/spending?fromDate=${period.fromDate}&toDate=${period.toDate}&groupBy=none`),
      200,
    )
    expect(rest).toMatchObject({ netSpentCents: '2000', spentCents: '2500' })
    expect(answer.text).toBe('You spent 2000 cents, net of refunds.')

    const first = fake.requests.at(-2)
    const system = first.messages[0]
    expect(system.role).toBe('system')
    for (const rule of [
      'reports_spending netSpentCents',
      'earnedCents: income categories only; a refund is not earnings',
      'Upcoming bills come from recurrences_upcoming',
      'Answer only the question asked',
      'say what you did not understand instead of answering another question',
      'Decline politely',
      'pending action the member confirms',
      `the base currency is USD`,
    ]) {
      expect(system.content).toContain(rule)
    }
    expect(system.content).toMatch(/Today is \d{4}-\d{2}-\d{2}/)
    const listed = expectStatus(await api.get(`${AI}/tools`), 200)
    const sent = first.tools.map((t: any) => t.function)
    expect(sent.map((t: any) => t.name)).toEqual(listed.names)
    for (const tool of listed.tools) {
      expect(sent.find((t: any) => t.name === tool.name).description).toBe(tool.description)
    }
    expect(sent.find((t: any) => t.name === 'reports_spending').parameters.properties).toHaveProperty(
      'accountId',
    )
    expect(listed.names).toContain('recurrences_upcoming')
    expect(listed.names.filter((n: string) => /^(invitations|households|members|webhooks)_/.test(n))).toEqual(
      [],
    )
  })
})
