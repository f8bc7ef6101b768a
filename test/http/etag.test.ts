import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'

const server = useTestServer()

describe('ETag and If-Match', () => {
  it('tags a single read, and the tag changes when the resource does', async () => {
    const owner = await server.newOwner()
    const H = `/households/${owner.householdId}`
    const first = await owner.api.get(H)
    expect(first.headers.get('etag')).toMatch(/^"[\w-]{27}"$/)
    expect((await owner.api.get(H)).headers.get('etag')).toBe(first.headers.get('etag'))
    await owner.api.patch(H, { name: 'Renamed' })
    expect((await owner.api.get(H)).headers.get('etag')).not.toBe(first.headers.get('etag'))
  })

  it('writes with a current If-Match, and refuses a stale one with 412, changing nothing', async () => {
    const owner = await server.newOwner()
    const H = `/households/${owner.householdId}`
    const etag = (await owner.api.get(H)).headers.get('etag')!
    const ok = await owner.api.patch(H, { name: 'First edit' }, { 'if-match': etag })
    expect(ok.status).toBe(200)
    const stale = await owner.api.patch(H, { name: 'Second edit' }, { 'if-match': etag })
    expect([stale.status, stale.body.code]).toEqual([412, 'PRECONDITION_FAILED'])
    expect(stale.body.etag).toBe((await owner.api.get(H)).headers.get('etag'))
    expect((await owner.api.get(H)).body.name).toBe('First edit')
    expect((await owner.api.patch(H, { name: 'Any' }, { 'if-match': '*' })).status).toBe(200)
  })

  it('lets one of two members editing the same row at once win, and tells the other', async () => {
    const owner = await server.newOwner()
    const member = await server.newMember(owner, 'member')
    const P = `/households/${owner.householdId}/payees`
    const payee = await owner.api.post(P, { name: 'Grocer' })
    const etag = (await owner.api.get(`${P}/${payee.body.id}`)).headers.get('etag')!
    const [a, b] = await Promise.all([
      owner.api.patch(`${P}/${payee.body.id}`, { name: 'Grocer A' }, { 'if-match': etag }),
      member.api.patch(`${P}/${payee.body.id}`, { name: 'Grocer B' }, { 'if-match': etag }),
    ])
    expect([a.status, b.status].sort()).toEqual([200, 412])
    const winner = a.status === 200 ? 'Grocer A' : 'Grocer B'
    expect((await owner.api.get(`${P}/${payee.body.id}`)).body.name).toBe(winner)
  })

  it('refuses a DELETE with a stale If-Match, and keeps the row', async () => {
    const owner = await server.newOwner()
    const P = `/households/${owner.householdId}/payees`
    const payee = await owner.api.post(P, { name: 'Bakery' })
    const etag = (await owner.api.get(`${P}/${payee.body.id}`)).headers.get('etag')!
    await owner.api.patch(`${P}/${payee.body.id}`, { name: 'Bakery & Co' })
    const res = await owner.api.request('DELETE', `${P}/${payee.body.id}`, undefined, { 'if-match': etag })
    expect([res.status, res.body.code]).toEqual([412, 'PRECONDITION_FAILED'])
    expect((await owner.api.get(`${P}/${payee.body.id}`)).status).toBe(200)
    const fresh = (await owner.api.get(`${P}/${payee.body.id}`)).headers.get('etag')!
    const gone = await owner.api.request('DELETE', `${P}/${payee.body.id}`, undefined, { 'if-match': fresh })
    expect(gone.status).toBe(204)
  })
})
