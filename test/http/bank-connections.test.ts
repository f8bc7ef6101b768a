import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dayAt, type FakeAccount, FakeSimplefin } from '../src/fake-simplefin.ts'
import { type ApiClient, apiClient, startTestServer, useTestServer } from '../src/index.ts'
import { expectProblem, expectStatus, H } from './catalog-fixture.ts'
import { expectBalancesExact, listAll } from './ledger-fixture.ts'
import { eventually } from './webhook-receiver.ts'

// Every sync may follow the last at once, and a failed window is not retried: the tests say when.
const server = useTestServer({
  banks: { intervalMs: 3_600_000, minGapMs: 0, initialDays: 90, retryDelaysMs: [], timeoutMs: 1_000 },
})
const bridge = new FakeSimplefin()
beforeAll(() => bridge.start())
afterAll(() => bridge.close())

const now = new Date()
const checking = (): FakeAccount => ({
  id: `ACT-${Math.random().toString(36).slice(2)}`,
  name: 'Everyday Checking',
  currency: 'USD',
  balance: '1234.50',
  'balance-date': dayAt(now, 0),
  org: { name: 'First Bank', domain: 'firstbank.example' },
  transactions: [],
})

async function connect(api: ApiClient) {
  return expectStatus(await api.post(`${H}/bank-connections`, { setupToken: bridge.setupToken() }), 201)
}

async function sync(api: ApiClient, id: string) {
  return expectStatus(await api.post(`${H}/bank-connections/${id}/sync`), 200)
}

describe('bank connections over SimpleFIN', () => {
  it('claims a setup token once, lists the remote accounts unlinked, and never shows the access', async () => {
    const owner = await server.newOwner()
    const account = checking()
    bridge.accounts.push(account)
    const token = bridge.setupToken()
    const made = expectStatus(await owner.api.post(`${H}/bank-connections`, { setupToken: token }), 201)
    expect(made).toMatchObject({ provider: 'simplefin', status: 'active', institutions: ['First Bank'] })
    expect(made.links.find((l: any) => l.remoteId === account.id)).toMatchObject({
      name: 'Everyday Checking',
      currency: 'USD',
      accountId: null,
      balanceCents: '123450',
    })
    expect(JSON.stringify(made)).not.toContain('p%40ss')
    const sealed = await server.store.db
      .selectFrom('bank_connections')
      .select('access_sealed')
      .where('id', '=', made.id)
      .executeTakeFirstOrThrow()
    expect(sealed.access_sealed).toMatch(/^v1:/)
    // A token claims once: again, the bridge refuses it, and so does Hearth.
    expectProblem(
      await owner.api.post(`${H}/bank-connections`, { setupToken: token }),
      409,
      'BANK_SETUP_TOKEN_REFUSED',
    )
    expectProblem(
      await owner.api.post(`${H}/bank-connections`, { setupToken: 'not a token' }),
      400,
      'BANK_SETUP_TOKEN_INVALID',
    )
    expect(
      expectProblem(await owner.api.post(`${H}/bank-connections`, {}), 400, 'VALIDATION_FAILED').errors,
    ).toEqual([expect.objectContaining({ path: 'setupToken' })])
    expectProblem(
      await owner.api.post(`${H}/bank-connections?x=1`, { setupToken: 'a' }),
      400,
      'VALIDATION_FAILED',
    )
    const list = expectStatus(await owner.api.get(`${H}/bank-connections`), 200)
    expect(list.items.map((c: any) => c.id)).toEqual([made.id])
    // A read-only key reads; it cannot connect.
    const reader = await server.newMember(owner, 'member', ['read:accounts'])
    expect((await reader.api.get(`${H}/bank-connections/${made.id}`)).status).toBe(200)
    expect((await reader.api.post(`${H}/bank-connections`, { setupToken: bridge.setupToken() })).status).toBe(
      403,
    )
  })

  it('syncs new, pending-then-posted and replaced rows once each, and a bank file of the same rows adds nothing', async () => {
    const owner = await server.newOwner()
    const remote = checking()
    const other = { ...checking(), name: 'Savings', currency: 'EUR' }
    bridge.accounts.push(remote, other)
    remote.transactions.push(
      { id: 'T1', posted: dayAt(now, -20), amount: '-42.10', description: 'GROCER 123', payee: 'Grocer' },
      { id: 'T2', posted: dayAt(now, -10), amount: '2500.00', description: 'PAYROLL ACME' },
      {
        id: 'P1',
        posted: 0,
        amount: '-9.99',
        description: 'STREAMING',
        pending: true,
        transacted_at: dayAt(now, -1),
      },
      {
        id: 'P2',
        posted: 0,
        amount: '-15.00',
        description: 'CAFE',
        pending: true,
        transacted_at: dayAt(now, -1),
      },
    )
    const c = await connect(owner.api)
    // The savings account is in EUR: a USD account is refused for it; the checking gets a new account.
    const usd = expectStatus(
      await owner.api.post(`${H}/accounts`, { name: 'Mine', type: 'cash', currency: 'USD' }),
      201,
    )
    expectProblem(
      await owner.api.put(`${H}/bank-connections/${c.id}/links/${other.id}`, { accountId: usd.id }),
      422,
      'BANK_LINK_CURRENCY_MISMATCH',
    )
    const linked = expectStatus(
      await owner.api.put(`${H}/bank-connections/${c.id}/links/${remote.id}`, {
        createAccount: { name: 'Checking (bank)' },
      }),
      200,
    )
    const accountId = linked.links.find((l: any) => l.remoteId === remote.id).accountId
    expect(accountId).toBeTruthy()
    expectProblem(
      await owner.api.put(`${H}/bank-connections/${c.id}/links/${other.id}`, { accountId }),
      422,
      'BANK_LINK_CURRENCY_MISMATCH',
    )

    const first = await sync(owner.api, c.id)
    expect(first.lastSync).toMatchObject({ outcome: 'synced', error: null })
    expect(first.lastSync.accounts).toEqual([
      expect.objectContaining({
        remoteId: remote.id,
        accountId,
        created: 4,
        duplicate: 0,
        updated: 0,
        removed: 0,
      }),
    ])
    let rows = await listAll(owner.api, `accountId=${accountId}`)
    expect(rows.map((r) => [r.importedId, r.amountCents, r.status]).sort()).toEqual([
      ['P1', '-999', 'pending'],
      ['P2', '-1500', 'pending'],
      ['T1', '-4210', 'cleared'],
      ['T2', '250000', 'cleared'],
    ])
    // The unlinked savings account brought nothing.
    expect(first.lastSync.accounts).toHaveLength(1)

    // The bank posts P1 (same id, a new amount), drops P2 for a posted row of another id, and adds T3,
    // posted a minute ago (noon today may still be ahead, past the sync's end).
    const justNow = Math.floor(Date.now() / 1000) - 60
    Object.assign(remote.transactions[2]!, { pending: false, posted: justNow, amount: '-10.49' })
    remote.transactions.splice(3, 1, {
      id: 'T4',
      posted: justNow,
      amount: '-15.00',
      description: 'CAFE',
    })
    remote.transactions.push({ id: 'T3', posted: dayAt(now, -2), amount: '-5.00', description: 'BAKERY' })
    remote.balance = '2427.41'
    const second = await sync(owner.api, c.id)
    expect(second.lastSync.accounts[0]).toMatchObject({ created: 2, updated: 1, removed: 1 })
    rows = await listAll(owner.api, `accountId=${accountId}`)
    expect(rows.map((r) => [r.importedId, r.amountCents, r.status]).sort()).toEqual([
      ['P1', '-1049', 'cleared'],
      ['T1', '-4210', 'cleared'],
      ['T2', '250000', 'cleared'],
      ['T3', '-500', 'cleared'],
      ['T4', '-1500', 'cleared'],
    ])
    const account = await expectBalancesExact(owner.api, accountId)
    expect(second.lastSync.accounts[0]).toMatchObject({
      bankBalanceCents: '242741',
      accountBalanceCents: account.clearedBalanceCents,
      differenceCents: String(242741 - Number(account.clearedBalanceCents)),
    })
    // Nothing new: a third sync is all duplicates.
    const third = await sync(owner.api, c.id)
    expect(third.lastSync.accounts[0]).toMatchObject({ created: 0, updated: 0, removed: 0 })
    expect(third.lastSync.accounts[0].batchId).toBeNull()

    // A bank file of the same rows (FITID = the bridge's id) is all duplicates.
    const day = (s: number) => new Date(s * 1000).toISOString().slice(0, 10).replaceAll('-', '')
    const ofx = `OFXHEADER:100
DATA:OFXSGML
VERSION:102

<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>USD<BANKTRANLIST>
${remote.transactions
  .map(
    (t) =>
      `<STMTTRN><TRNTYPE>OTHER<DTPOSTED>${day(t.posted)}<TRNAMT>${t.amount}<FITID>${t.id}<NAME>${t.description}</STMTTRN>`,
  )
  .join('\n')}
</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>`
    const preview = expectStatus(
      await owner.api.post(`${H}/imports/preview`, { accountId, format: 'ofx', content: ofx }),
      200,
    )
    expect(preview.counts).toMatchObject({ new: 0, duplicate: 5 })
    expect((await listAll(owner.api, `accountId=${accountId}`)).length).toBe(5)
  })

  it('keeps the windows it fetched whole when the bridge times out mid-sync, and finishes on the next sync', async () => {
    const owner = await server.newOwner()
    const remote = checking()
    bridge.accounts.push(remote)
    // 200 days back: three windows of at most 90 days.
    remote.transactions.push(
      { id: 'OLD', posted: dayAt(now, -190), amount: '-1.00', description: 'OLD' },
      { id: 'MID', posted: dayAt(now, -100), amount: '-2.00', description: 'MID' },
      { id: 'NEW', posted: dayAt(now, -3), amount: '-3.00', description: 'NEW' },
    )
    const c = await connect(owner.api)
    const linked = expectStatus(
      await owner.api.put(`${H}/bank-connections/${c.id}/links/${remote.id}`, { createAccount: {} }),
      200,
    )
    const accountId = linked.links.find((l: any) => l.remoteId === remote.id).accountId
    const s = await startTestServer({
      banks: { intervalMs: 3_600_000, minGapMs: 0, initialDays: 200, retryDelaysMs: [], timeoutMs: 500 },
    })
    try {
      const api = apiClient(s.url, owner.api.token)
      // The first window answers; the second never does (a timeout), so the third is not asked.
      bridge.failLater(2, 'hang')
      const partial = api.post(`${H}/bank-connections/${c.id}/sync`)
      const { status, body } = await partial
      expect(status).toBe(200)
      expect(body.lastSync).toMatchObject({ outcome: 'partial' })
      expect(body.lastSync.windows).toHaveLength(1)
      expect(body.lastSync.error).toMatch(/did not answer within 500 ms/)
      let rows = await listAll(owner.api, `accountId=${accountId}`)
      expect(rows.map((r) => r.importedId)).toEqual(['OLD'])
      // The next sync starts where the whole windows ended and brings the rest, once.
      const done = await api.post(`${H}/bank-connections/${c.id}/sync`)
      expect(done.body.lastSync).toMatchObject({ outcome: 'synced', error: null })
      rows = await listAll(owner.api, `accountId=${accountId}`)
      expect(rows.map((r) => r.importedId).sort()).toEqual(['MID', 'NEW', 'OLD'])
    } finally {
      await s.close()
    }
  })

  it('marks a revoked access as needing attention and tells the owners', async () => {
    const local = new FakeSimplefin()
    await local.start()
    try {
      const owner = await server.newOwner()
      const remote = checking()
      local.accounts.push(remote)
      const c = expectStatus(
        await owner.api.post(`${H}/bank-connections`, { setupToken: local.setupToken() }),
        201,
      )
      local.errors = ['First Bank needs you to sign in again at the bridge.']
      const ok = await sync(owner.api, c.id)
      expect(ok.lastSync.providerErrors).toEqual(['First Bank needs you to sign in again at the bridge.'])
      local.revoke()
      const refused = await sync(owner.api, c.id)
      expect(refused).toMatchObject({ status: 'needsAttention', lastSync: { outcome: 'failed' } })
      expect(refused.attentionReason).toMatch(/revoked or has expired/)
      const note = await eventually(async () => {
        const feed = expectStatus(await owner.api.get('/notifications'), 200)
        return feed.items.find((n: any) => n.kind === 'bank_connection_attention')
      })
      expect(note.subject).toMatchObject({ type: 'bankConnection', connectionId: c.id })
      // The job leaves a connection that needs attention alone.
      const asked = local.accountRequests().length
      expect(await server.jobs.runNow('bankConnections.sync')).toBe('ran')
      expect(local.accountRequests().length).toBe(asked)
    } finally {
      await local.close()
    }
    // The job syncs every due connection in the worker's shared store, which under load takes a while.
  }, 90_000)

  it('syncs a due connection once when two servers run the job at the same time', async () => {
    const owner = await server.newOwner()
    const remote = checking()
    remote.transactions.push({ id: 'J1', posted: dayAt(now, -1), amount: '-7.00', description: 'JOB' })
    bridge.accounts.push(remote)
    const c = await connect(owner.api)
    const linked = expectStatus(
      await owner.api.put(`${H}/bank-connections/${c.id}/links/${remote.id}`, { createAccount: {} }),
      200,
    )
    const other = await startTestServer({
      banks: { intervalMs: 3_600_000, minGapMs: 0, initialDays: 90, retryDelaysMs: [], timeoutMs: 1_000 },
    })
    try {
      const before = bridge.accountRequests().length
      await Promise.all([
        server.jobs.runNow('bankConnections.sync'),
        other.jobs.runNow('bankConnections.sync'),
      ])
      const after = expectStatus(await owner.api.get(`${H}/bank-connections/${c.id}`), 200)
      expect(after.lastSync).toMatchObject({ outcome: 'synced' })
      // The other households' connections may be due too: count this connection's own syncs.
      const rows = await listAll(
        owner.api,
        `accountId=${linked.links.find((l: any) => l.remoteId === remote.id).accountId}`,
      )
      expect(rows.map((r) => r.importedId)).toEqual(['J1'])
      expect(bridge.accountRequests().length).toBeGreaterThan(before)
      // Synced just now: the next runs leave it be.
      await server.jobs.runNow('bankConnections.sync')
      const again = expectStatus(await owner.api.get(`${H}/bank-connections/${c.id}`), 200)
      expect(again.lastSync.syncId).toBe(after.lastSync.syncId)
    } finally {
      await other.close()
    }
  }, 90_000)

  it('disconnects: the access and links go, the rows stay', async () => {
    const owner = await server.newOwner()
    const remote = checking()
    remote.transactions.push({ id: 'D1', posted: dayAt(now, -1), amount: '-1.00', description: 'X' })
    bridge.accounts.push(remote)
    const c = await connect(owner.api)
    const linked = expectStatus(
      await owner.api.put(`${H}/bank-connections/${c.id}/links/${remote.id}`, { createAccount: {} }),
      200,
    )
    await sync(owner.api, c.id)
    const member = await server.newMember(owner)
    expect((await member.api.delete(`${H}/bank-connections/${c.id}`)).status).toBe(403)
    expect((await owner.api.delete(`${H}/bank-connections/${c.id}`)).status).toBe(204)
    expectProblem(await owner.api.get(`${H}/bank-connections/${c.id}`), 404, 'NOT_FOUND')
    expect(
      await listAll(
        owner.api,
        `accountId=${linked.links.find((l: any) => l.remoteId === remote.id).accountId}`,
      ),
    ).toHaveLength(1)
  })
})
