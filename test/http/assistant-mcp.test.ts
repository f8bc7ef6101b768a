import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterEach, describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { relativeDates } from './assistant-fixture.ts'
import { createCategory, createGroup, expectStatus, H } from './catalog-fixture.ts'
import { createAccount, createTransaction } from './ledger-fixture.ts'

const server = useTestServer()
const AI = `${H}/ai`
const d = relativeDates()
const clients: Client[] = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()))
})

/** Connects the MCP SDK's own client to the server over real HTTP with an API key. */
async function connect(token: string | null): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/households/current/mcp`), {
    requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} },
  })
  const client = new Client({ name: 'test', version: '1.0.0' })
  await client.connect(transport)
  clients.push(client)
  return client
}

const json = (result: any) => JSON.parse(result.content[0].text)

describe('Hearth as an MCP server', () => {
  it('offers the same tools as chat, reads at once, and turns writes into pending actions', async () => {
    const owner = await server.newOwner()
    const { api } = owner
    expectStatus(await api.post(`${AI}/consent`), 200)
    const account = await createAccount(api)
    const group = await createGroup(api, 'G')
    const food = await createCategory(api, group.id, 'Food')
    const fun = await createCategory(api, group.id, 'Fun')
    await createTransaction(api, account.id, {
      date: d.lastMonthDay,
      amountCents: -2500,
      categoryId: food.id,
    })
    const client = await connect(api.token)
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(expectStatus(await api.get(`${AI}/tools`), 200).names)
    // An invitation yields a key, and leaving a household is membership: neither is ever a tool.
    expect(
      tools.map((t) => t.name).filter((n) => /^(invitations|households|members|webhooks)_/.test(n)),
    ).toEqual([])
    expect(tools.find((t) => t.name === 'reports_spending')!.inputSchema.properties).toHaveProperty(
      'fromDate',
    )

    const spent = await client.callTool({
      name: 'reports_spending',
      arguments: { fromDate: `${d.lastMonth}-01`, toDate: `${d.lastMonth}-28`, groupBy: 'none' },
    })
    expect(spent.isError).toBeFalsy()
    expect(json(spent).spentCents).toBe('2500')

    const bad = await client.callTool({ name: 'reports_spending', arguments: { fromDate: 'soon' } })
    expect(bad.isError).toBe(true)
    expect(json(bad).error.code).toBe('VALIDATION_FAILED')

    const move = await client.callTool({
      name: 'budgets_move',
      arguments: { month: d.thisMonth, fromCategoryId: food.id, toCategoryId: fun.id, amountCents: 900 },
    })
    const { actionId, status } = json(move)
    expect(status).toBe('pending')
    const cell = async () =>
      expectStatus(await api.get(`${H}/budgets/${d.thisMonth}/categories/${fun.id}`), 200).assignedCents
    expect(await cell()).toBe('0')
    expect(expectStatus(await api.get(`${AI}/actions`), 200).items.map((a: any) => a.id)).toEqual([actionId])
    expectStatus(await api.post(`${AI}/actions/${actionId}/confirm`), 200)
    expect(await cell()).toBe('900')
  })

  it('filters tools by key scopes and role, and refuses without a key, scope or consent', async () => {
    const owner = await server.newOwner()
    expectStatus(await owner.api.post(`${AI}/consent`), 200)
    const member = await server.newMember(owner, 'member', ['ai:tools', 'ai:chat', 'read:budgets'])
    expectStatus(await member.api.post(`${AI}/consent`), 200)
    const names = (await (await connect(member.api.token)).listTools()).tools.map((t) => t.name)
    expect(names).toContain('budgets_get')
    expect(names).not.toContain('budgets_move')
    const refused = await (await connect(member.api.token)).callTool({ name: 'budgets_move', arguments: {} })
    expect(json(refused).error.code).toBe('UNKNOWN_TOOL')
    await expect(connect(null)).rejects.toThrow()
    const noScope = await server.newMember(owner, 'member', ['read:budgets'])
    await expect(connect(noScope.api.token)).rejects.toThrow()
    const noConsent = await server.newMember(owner, 'member', ['ai:tools'])
    await expect(connect(noConsent.api.token)).rejects.toThrow()
  })
})
