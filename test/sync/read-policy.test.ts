import { SCOPES } from '@hearth/engine'
import type { RunningServer } from '@hearth/server'
import { ulid } from 'ulidx'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient, issueKey, newOwner, startTestServer, type TestMember } from '../src/index.ts'
import { type RawSocket, rawSocket } from './socket.ts'

let server: RunningServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

/** A raw device that said hello with `token` and read its whole snapshot; answers the tables it got. */
async function joined(member: TestMember, token: string) {
  const socket = await rawSocket(server.url)
  socket.send({ type: 'hello', token, householdId: member.householdId, clientId: ulid(), cursor: null })
  await socket.next('welcome')
  const tables = new Set<string>()
  while (true) {
    const page = await socket.next('snapshot')
    for (const t of page.tables) tables.add(t.table)
    if (!page.more) return { socket, tables }
  }
}

/** Reads deltas until one reaches `version`; answers the tables of every change they carried. */
async function deltaTablesUpTo(socket: RawSocket, version: number): Promise<string[]> {
  const tables: string[] = []
  while (true) {
    const delta = await socket.next('delta')
    tables.push(...delta.changes.map((c: any) => c.table))
    if (delta.version >= version && !delta.more) return tables
  }
}

function upsertRate(id: number, fromCurrency: string) {
  return { id, name: 'exchangeRates.upsert', args: { fromCurrency, toCurrency: 'USD', rate: '1.08' } }
}

describe('the read policy over a real socket', () => {
  it('sends exchange rates only to keys that read transactions, as REST does', async () => {
    const owner = await newOwner(server)
    // Reads accounts (which once carried exchange rates over sync), not transactions.
    const noTransactions = await issueKey(
      server,
      owner.userId,
      SCOPES.filter((s) => s !== 'read:transactions'),
    )
    const writer = await joined(owner, owner.api.token)
    writer.socket.send({
      type: 'push',
      mutations: [
        upsertRate(1, 'EUR'),
        { id: 2, name: 'accounts.create', args: { id: ulid(), name: 'Checking', type: 'cash' } },
      ],
    })
    expect((await writer.socket.next('pushResult')).results.map((r: any) => r.status)).toEqual([
      'applied',
      'applied',
    ])

    const full = await joined(owner, owner.api.token)
    expect(full.tables).toContain('exchange_rates')
    const limited = await joined(owner, noTransactions)
    expect(limited.tables).toContain('accounts')
    expect(limited.tables).not.toContain('exchange_rates')

    // A change after joining reaches the limited device by the fan-out, without the rate.
    writer.socket.send({
      type: 'push',
      mutations: [
        upsertRate(3, 'GBP'),
        { id: 4, name: 'accounts.create', args: { id: ulid(), name: 'Savings', type: 'cash' } },
      ],
    })
    await writer.socket.next('pushResult')
    const version = await householdVersion(owner)
    expect(await deltaTablesUpTo(full.socket, version)).toContain('exchange_rates')
    const fannedOut = await deltaTablesUpTo(limited.socket, version)
    expect(fannedOut).toContain('accounts')
    expect(fannedOut).not.toContain('exchange_rates')

    // A delta read from the log (a pull from version 0) leaves the rates out too.
    limited.socket.send({ type: 'pull', cursor: 0 })
    const pulled = await limited.socket.next('delta')
    expect(pulled).toMatchObject({ fromVersion: 0, version, more: false })
    const pulledTables = pulled.changes.map((c: any) => c.table)
    expect(pulledTables).toContain('accounts')
    expect(pulledTables).not.toContain('exchange_rates')

    // And so does the HTTP snapshot.
    const snapshot = await apiClient(server.url, noTransactions).get(
      `/sync/snapshot?householdId=${owner.householdId}`,
    )
    expect(snapshot.status).toBe(200)
    expect(snapshot.body.tables.map((t: any) => t.table)).not.toContain('exchange_rates')
    for (const s of [writer, full, limited]) s.socket.close()
  })
})

async function householdVersion(member: TestMember): Promise<number> {
  const row = await server.store.db
    .selectFrom('household_clock')
    .select('version')
    .where('household_id', '=', member.householdId)
    .executeTakeFirstOrThrow()
  return row.version
}
