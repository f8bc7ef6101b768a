import { SCOPES } from '@hearth/engine'
import { describe, expect, it } from 'vitest'
import { apiClient, useTestServer } from '../src/index.ts'

const server = useTestServer()

const MEMBER_SCOPES = ['read:households', 'read:budgets', 'write:budgets', 'read:categories']

describe('invitations', () => {
  it('lets a person without a key join with a code that works once, and shows the code once', async () => {
    const owner = await server.newOwner()
    const H = `/households/${owner.householdId}`
    const created = await owner.api.post(`${H}/invitations`, { scopes: MEMBER_SCOPES, note: 'Sam' })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      role: 'member',
      status: 'pending',
      scopes: MEMBER_SCOPES,
      note: 'Sam',
    })
    expect(created.body.code).toMatch(/^hinv_/)
    const listed = await owner.api.get(`${H}/invitations`)
    expect(listed.body.items.map((i: any) => i.id)).toEqual([created.body.id])
    expect(JSON.stringify(listed.body)).not.toContain(created.body.code)

    const anonymous = apiClient(server.url, null)
    const joined = await anonymous.post('/invitations/redeem', { code: created.body.code, name: 'Sam' })
    expect(joined.status).toBe(201)
    expect(joined.body).toMatchObject({ role: 'member', household: { id: owner.householdId } })
    expect(joined.body.apiKey.scopes).toEqual(MEMBER_SCOPES)
    const sam = apiClient(server.url, joined.body.apiKey.key)
    expect((await sam.get(`${H}`)).status).toBe(200)
    expect((await sam.get('/households/current')).body.id).toBe(owner.householdId)
    expect((await sam.get('/households')).body.items).toMatchObject([
      { id: owner.householdId, role: 'member' },
    ])
    const members = await owner.api.get(`${H}/members`)
    expect(members.body.items.map((m: any) => m.name)).toEqual(['Owner', 'Sam'])

    const again = await anonymous.post('/invitations/redeem', { code: created.body.code, name: 'Eve' })
    expect(again.status).toBe(410)
    expect(again.body.code).toBe('INVITATION_USED')
    const after = await owner.api.get(`${H}/invitations`)
    expect(after.body.items[0]).toMatchObject({ status: 'redeemed', redeemedBy: joined.body.userId })
  })

  it('refuses revoked, expired and unknown codes, each with its own code', async () => {
    const owner = await server.newOwner()
    const H = `/households/${owner.householdId}`
    const anonymous = apiClient(server.url, null)
    const revoked = await owner.api.post(`${H}/invitations`, { scopes: ['read:households'] })
    expect((await owner.api.delete(`${H}/invitations/${revoked.body.id}`)).status).toBe(204)
    const r1 = await anonymous.post('/invitations/redeem', { code: revoked.body.code, name: 'A' })
    expect([r1.status, r1.body.code]).toEqual([410, 'INVITATION_REVOKED'])

    const expiring = await owner.api.post(`${H}/invitations`, { scopes: ['read:households'] })
    await server.store.db
      .updateTable('invitations')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', expiring.body.id)
      .execute()
    const r2 = await anonymous.post('/invitations/redeem', { code: expiring.body.code, name: 'A' })
    expect([r2.status, r2.body.code]).toEqual([410, 'INVITATION_EXPIRED'])
    expect((await owner.api.get(`${H}/invitations`)).body.items.map((i: any) => i.status)).toEqual([
      'expired',
      'revoked',
    ])

    const r3 = await anonymous.post('/invitations/redeem', { code: 'hinv_nothing', name: 'A' })
    expect([r3.status, r3.body.code]).toEqual([404, 'NOT_FOUND'])
    const r4 = await anonymous.post('/invitations/redeem', { code: revoked.body.code })
    expect(r4.status).toBe(400)
  })

  it('lets a user with a key join with the user they have, once', async () => {
    const owner = await server.newOwner()
    const other = await server.newOwner()
    const H = `/households/${owner.householdId}`
    const invite = await owner.api.post(`${H}/invitations`, { role: 'owner', scopes: ['read:households'] })
    const joined = await other.api.post('/invitations/redeem', { code: invite.body.code })
    expect(joined.status).toBe(201)
    expect(joined.body).toMatchObject({ userId: other.userId, role: 'owner' })
    const households = await other.api.get('/households')
    expect(households.body.items.map((h: any) => h.id)).toEqual([other.householdId, owner.householdId])
    const second = await owner.api.post(`${H}/invitations`, { scopes: ['read:households'] })
    const twice = await other.api.post('/invitations/redeem', { code: second.body.code })
    expect([twice.status, twice.body.code]).toEqual([409, 'ALREADY_MEMBER'])
  })

  it('is for owners, and grants only scopes the owner holds', async () => {
    const owner = await server.newOwner(['read:households', 'write:households'])
    const member = await server.newMember(owner, 'member')
    const H = `/households/${owner.householdId}`
    const byMember = await member.api.post(`${H}/invitations`, { scopes: ['read:households'] })
    expect([byMember.status, byMember.body.code]).toEqual([403, 'OWNER_ONLY'])
    const tooMuch = await owner.api.post(`${H}/invitations`, { scopes: ['read:budgets'] })
    expect([tooMuch.status, tooMuch.body.code]).toEqual([403, 'SCOPE_NOT_GRANTABLE'])
    const late = await owner.api.post(`${H}/invitations`, {
      scopes: ['read:households'],
      expiresAt: new Date(Date.now() + 40 * 86_400_000).toISOString(),
    })
    expect(late.status).toBe(400)
    expect(late.body.errors[0].path).toBe('expiresAt')
  })
  it('takes a role preset instead of scopes: a partner can use every screen, a viewer only reads', async () => {
    const owner = await server.newOwner()
    const H = `/households/${owner.householdId}`
    const partner = await owner.api.post(`${H}/invitations`, { role: 'member', note: 'Sam' })
    expect(partner.status).toBe(201)
    expect(partner.body).toMatchObject({ role: 'member', scopes: [...SCOPES] })
    const viewer = await owner.api.post(`${H}/invitations`, { role: 'viewer', note: 'Grandma' })
    expect(viewer.status).toBe(201)
    expect(viewer.body.role).toBe('member')
    expect(viewer.body.scopes).toContain('read:transactions')
    expect(viewer.body.scopes).not.toContain('write:transactions')

    const anonymous = apiClient(server.url, null)
    const sam = await anonymous.post('/invitations/redeem', { code: partner.body.code, name: 'Sam' })
    expect(sam.body.apiKey.scopes).toEqual([...SCOPES])
    const samApi = apiClient(server.url, sam.body.apiKey.key)
    expect((await samApi.get(`${H}/accounts`)).status).toBe(200)
    expect((await samApi.get(`${H}/transactions`)).status).toBe(200)

    const grandma = await anonymous.post('/invitations/redeem', { code: viewer.body.code, name: 'Grandma' })
    const grandmaApi = apiClient(server.url, grandma.body.apiKey.key)
    expect((await grandmaApi.get(`${H}/transactions`)).status).toBe(200)
    const write = await grandmaApi.post(`${H}/accounts`, { name: 'Mine', type: 'cash' })
    expect([write.status, write.body.code]).toEqual([403, 'INSUFFICIENT_SCOPE'])
  })

  it('leaves out of a preset the scopes the inviting key lacks, and refuses when none are left', async () => {
    const owner = await server.newOwner(['read:households', 'write:households', 'write:budgets'])
    const H = `/households/${owner.householdId}`
    const member = await owner.api.post(`${H}/invitations`, { role: 'member' })
    expect(member.body.scopes).toEqual(['read:households', 'write:households', 'write:budgets'])
    const viewer = await owner.api.post(`${H}/invitations`, { role: 'viewer' })
    expect(viewer.body.scopes).toEqual(['read:households'])
    const narrow = await server.newOwner(['write:households', 'write:budgets'])
    const none = await narrow.api.post(`/households/${narrow.householdId}/invitations`, { role: 'viewer' })
    expect([none.status, none.body.code]).toEqual([403, 'SCOPE_NOT_GRANTABLE'])
  })
})

describe('members', () => {
  it('changes roles, and never leaves a household without an owner', async () => {
    const owner = await server.newOwner()
    const member = await server.newMember(owner, 'member')
    const M = `/households/${owner.householdId}/members`
    const demote = await owner.api.patch(`${M}/${owner.userId}`, { role: 'member' })
    expect([demote.status, demote.body.code]).toEqual([409, 'LAST_OWNER'])
    const leave = await owner.api.delete(`${M}/me`)
    expect([leave.status, leave.body.code]).toEqual([409, 'LAST_OWNER'])
    const removeSelf = await owner.api.delete(`${M}/${owner.userId}`)
    expect([removeSelf.status, removeSelf.body.code]).toEqual([409, 'LAST_OWNER'])

    const promote = await owner.api.patch(`${M}/${member.userId}`, { role: 'owner' })
    expect(promote.status).toBe(200)
    expect(promote.body).toEqual({ householdId: owner.householdId, userId: member.userId, role: 'owner' })
    expect((await owner.api.delete(`${M}/me`)).status).toBe(204)
    expect((await owner.api.get(`/households/${owner.householdId}`)).status).toBe(404)
    expect((await owner.api.get('/users/me')).body.defaultHouseholdId).toBeNull()
    const left = await member.api.get(M)
    expect(left.body.items.map((m: any) => m.userId)).toEqual([member.userId])
  })

  it('removes a member: their keys lose the household at once', async () => {
    const owner = await server.newOwner()
    const member = await server.newMember(owner, 'member')
    const H = `/households/${owner.householdId}`
    expect((await member.api.get(H)).status).toBe(200)
    const byMember = await member.api.delete(`${H}/members/${owner.userId}`)
    expect([byMember.status, byMember.body.code]).toEqual([403, 'OWNER_ONLY'])
    expect((await owner.api.delete(`${H}/members/${member.userId}`)).status).toBe(204)
    expect((await member.api.get(H)).status).toBe(404)
    expect((await member.api.get(`${H}/members`)).status).toBe(404)
    expect((await member.api.get('/households')).body.items).toEqual([])
    const again = await owner.api.delete(`${H}/members/${member.userId}`)
    expect(again.status).toBe(404)
  })

  it("lets an owner revoke a member's key", async () => {
    const owner = await server.newOwner()
    const member = await server.newMember(owner, 'member')
    const M = `/households/${owner.householdId}/members`
    const keys = await owner.api.get(`${M}/${member.userId}/api-keys`)
    expect(keys.status).toBe(200)
    expect(keys.body.items).toHaveLength(1)
    const byMember = await member.api.get(`${M}/${owner.userId}/api-keys`)
    expect([byMember.status, byMember.body.code]).toEqual([403, 'OWNER_ONLY'])
    const stranger = await server.newOwner()
    const foreign = await owner.api.delete(`${M}/${stranger.userId}/api-keys/${keys.body.items[0].id}`)
    expect(foreign.status).toBe(404)
    expect((await owner.api.delete(`${M}/${member.userId}/api-keys/${keys.body.items[0].id}`)).status).toBe(
      204,
    )
    expect((await member.api.get('/users/me')).status).toBe(401)
  })
})

describe('households', () => {
  it('creates another household the caller owns, and lists them all', async () => {
    const owner = await server.newOwner()
    const created = await owner.api.post('/households', {
      name: 'Holiday flat',
      baseCurrency: 'EUR',
      timeZone: 'Europe/Lisbon',
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      name: 'Holiday flat',
      baseCurrency: 'EUR',
      timeZone: 'Europe/Lisbon',
    })
    const mine = await owner.api.get('/households')
    expect(mine.body.items.map((h: any) => [h.id, h.role])).toEqual([
      [owner.householdId, 'owner'],
      [created.body.id, 'owner'],
    ])
    expect((await owner.api.get(`/households/${created.body.id}/members`)).body.items).toHaveLength(1)
    expect((await owner.api.get('/users/me')).body.defaultHouseholdId).toBe(owner.householdId)
  })

  it('keeps the base currency once the household has transactions', async () => {
    const owner = await server.newOwner()
    const H = `/households/${owner.householdId}`
    expect((await owner.api.patch(H, { baseCurrency: 'EUR' })).body.baseCurrency).toBe('EUR')
    const account = await owner.api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' })
    const made = await owner.api.post(`${H}/transactions`, {
      accountId: account.body.id,
      date: '2024-03-01',
      amountCents: -1250,
    })
    expect(made.status).toBe(201)
    const res = await owner.api.patch(H, { baseCurrency: 'USD' })
    expect([res.status, res.body.code, res.body.baseCurrency]).toEqual([409, 'BASE_CURRENCY_LOCKED', 'EUR'])
    expect((await owner.api.get(H)).body.baseCurrency).toBe('EUR')
    // The same currency, or any other setting, still saves.
    expect((await owner.api.patch(H, { baseCurrency: 'EUR', name: 'Renamed' })).status).toBe(200)
  })

  it('needs write:households to create one', async () => {
    const owner = await server.newOwner(['read:households'])
    const res = await owner.api.post('/households', { name: 'Nope' })
    expect([res.status, res.body.code]).toEqual([403, 'INSUFFICIENT_SCOPE'])
  })
})
