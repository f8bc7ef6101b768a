import { createHash } from 'node:crypto'
import { newUlid, operations, runMutation } from '@hearth/engine'
import { describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { cookieBrowser } from '../src/cookie-browser.ts'
import { TEST_DATABASE_URL, type TestMember, useTestServer } from '../src/index.ts'
import { rawSocket } from '../sync/socket.ts'

const server = useTestServer({ databaseUrl: TEST_DATABASE_URL })

const PASSWORD = 'plum tree under snow 42'
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** A browser of the test: keeps the cookie the server sets, and sends this server's Origin on writes. */
const browser = (origin?: string) => cookieBrowser(server.url, origin)

/** A setup link for `member`, as first start issues one; `hoursLeft` may be negative (expired). */
async function setupLink(member: TestMember, hoursLeft = 24): Promise<string> {
  const code = `hsl_${newUlid()}${newUlid()}`
  await runMutation(
    server.store.db,
    operations.signInLinks.issue,
    {
      id: newUlid(),
      purpose: 'setup',
      codeHash: sha256(code),
      expiresAt: new Date(Date.now() + hoursLeft * 3_600_000).toISOString(),
    },
    { userId: member.userId, scopes: [], now: new Date(Date.now() - 1000) },
  )
  return code
}

const uniqueEmail = () => `person-${newUlid().toLowerCase()}@example.org`

/** An owner who set a password through their setup link, and the browser that did it. */
async function ownerWithPassword() {
  const owner = await server.newOwner()
  const email = uniqueEmail()
  const tab = browser()
  const code = await setupLink(owner)
  const set = await tab.post('/sign-in-links/redeem', { code, password: PASSWORD, email })
  expect(set.status).toBe(201)
  return { owner, email, tab }
}

describe('setup link and passwords', () => {
  it('sets the owner’s email and password once, and signs the browser in with an HttpOnly cookie', async () => {
    const owner = await server.newOwner()
    const code = await setupLink(owner)
    const tab = browser()
    const email = uniqueEmail()

    const short = await tab.post('/sign-in-links/redeem', { code, password: 'short one', email })
    expect(short.status).toBe(400)
    expect(short.body.code).toBe('WEAK_PASSWORD')
    expect(short.body.detail).toMatch(/at least 12 characters; this one has 9/)
    const common = await tab.post('/sign-in-links/redeem', { code, password: 'iloveyou2024!', email })
    expect(common.status).toBe(400)
    expect(common.body.detail).toMatch(/common password/)
    const repeated = await tab.post('/sign-in-links/redeem', { code, password: 'letmeinletmein', email })
    expect(repeated.body.code).toBe('WEAK_PASSWORD')
    const noEmail = await tab.post('/sign-in-links/redeem', { code, password: PASSWORD })
    expect(noEmail.status).toBe(400)
    expect(noEmail.body.errors).toEqual([expect.objectContaining({ path: 'email' })])

    const set = await tab.post('/sign-in-links/redeem', { code, password: PASSWORD, email })
    expect(set.status).toBe(201)
    expect(set.body).toMatchObject({ userId: owner.userId, email, session: { current: true } })
    expect(set.setCookie).toMatch(
      /^hearth_session=hss_[\w-]+; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/,
    )
    const me = await tab.get('/users/me')
    expect(me.status).toBe(200)
    expect(me.body).toMatchObject({ id: owner.userId, email })

    const again = await browser().post('/sign-in-links/redeem', { code, password: `${PASSWORD}!`, email })
    expect(again.status).toBe(410)
    expect(again.body.code).toBe('LINK_USED')
    const unknown = await browser().post('/sign-in-links/redeem', { code: 'hsl_nothing', password: PASSWORD })
    expect(unknown.status).toBe(404)
  })

  it('refuses an expired link with 410 and changes nothing', async () => {
    const owner = await server.newOwner()
    const code = await setupLink(owner, -1)
    const tab = browser()
    const answer = await tab.post('/sign-in-links/redeem', { code, password: PASSWORD, email: uniqueEmail() })
    expect(answer.status).toBe(410)
    expect(answer.body.code).toBe('LINK_EXPIRED')
    expect(tab.cookie).toBeUndefined()
    const hash = await server.store.db
      .selectFrom('passwords')
      .select('user_id')
      .where('user_id', '=', owner.userId)
      .executeTakeFirst()
    expect(hash).toBeUndefined()
  })

  it('stores an scrypt hash, never the password', async () => {
    const { owner } = await ownerWithPassword()
    const row = await server.store.db
      .selectFrom('passwords')
      .select('hash')
      .where('user_id', '=', owner.userId)
      .executeTakeFirstOrThrow()
    expect(row.hash).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/)
    expect(row.hash).not.toContain(PASSWORD)
  })
})

describe('signing in', () => {
  it('signs in with the email in any case and the password; a wrong one is 401', async () => {
    const { owner, email } = await ownerWithPassword()
    const tab = browser()
    const wrong = await tab.post('/sessions', { email, password: `${PASSWORD}?` })
    expect(wrong.status).toBe(401)
    expect(wrong.body.code).toBe('UNAUTHENTICATED')
    const unknown = await tab.post('/sessions', { email: uniqueEmail(), password: PASSWORD })
    expect(unknown.status).toBe(401)
    const right = await tab.post('/sessions', {
      email: email.toUpperCase(),
      password: PASSWORD,
      deviceName: 'Test tab',
    })
    expect(right.status).toBe(201)
    expect(right.body).toMatchObject({ userId: owner.userId, session: { name: 'Test tab', current: true } })
    expect((await tab.get(`/households/${owner.householdId}`)).status).toBe(200)
  })

  it('rotates the secret at sign-in: the cookie held before stops working', async () => {
    const { email, tab } = await ownerWithPassword()
    const before = tab.cookie
    expect((await tab.post('/sessions', { email, password: PASSWORD })).status).toBe(201)
    expect(tab.cookie).not.toBe(before)
    const stale = browser()
    stale.cookie = before
    const answer = await stale.get('/users/me')
    expect(answer.status).toBe(401)
    expect(answer.body.detail).toMatch(/session has ended/)
    expect((await tab.get('/users/me')).status).toBe(200)
  })

  it('exchanges an API key for a session, and keeps nothing of the key', async () => {
    const owner = await server.newOwner()
    const tab = browser()
    const answer = await tab.post('/sessions', { apiKey: owner.api.token })
    expect(answer.status).toBe(201)
    expect(answer.setCookie).not.toContain(owner.api.token)
    expect((await tab.get('/users/me')).body.id).toBe(owner.userId)
    expect((await browser().post('/sessions', { apiKey: 'hth_unknown' })).status).toBe(401)
  })

  it('keeps a session made from a narrow key as narrow as the key', async () => {
    const owner = await server.newOwner()
    const reader = await server.issueKey(owner.userId, ['read:accounts', 'read:households', 'read:profile'])
    const tab = browser()
    expect((await tab.post('/sessions', { apiKey: reader })).status).toBe(201)
    expect((await tab.get(`/households/${owner.householdId}/accounts`)).status).toBe(200)
    const write = await tab.post(`/households/${owner.householdId}/accounts`, { name: 'No', type: 'cash' })
    expect(write.status).toBe(403)
    expect(write.body).toMatchObject({ code: 'INSUFFICIENT_SCOPE', requiredScope: 'write:accounts' })
  })

  it('refuses a sign-in posted by another site’s page', async () => {
    const { email } = await ownerWithPassword()
    const answer = await browser('https://evil.example').post('/sessions', { email, password: PASSWORD })
    expect(answer.status).toBe(403)
    expect(answer.body.code).toBe('CROSS_SITE_REFUSED')
  })

  it('answers the right password while wrong ones for the account are held back', async () => {
    const { email } = await ownerWithPassword()
    const statuses: number[] = []
    for (let i = 0; i < 12; i++)
      statuses.push((await browser().post('/sessions', { email, password: `wrong ${i} attempt` })).status)
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401))
    expect(statuses.at(-1)).toBe(429)
    expect((await browser().post('/sessions', { email, password: PASSWORD })).status).toBe(201)
  })
})

describe('a session cookie', () => {
  it('writes only from a page of this server (CSRF)', async () => {
    const { owner, tab } = await ownerWithPassword()
    const path = `/households/${owner.householdId}/tags`
    const crossSite = await tab.request('POST', path, { name: 'Forged' }, { origin: 'https://evil.example' })
    expect(crossSite.status).toBe(403)
    expect(crossSite.body.code).toBe('CROSS_SITE_REFUSED')
    const noOrigin = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { cookie: tab.cookie!, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'No origin' }),
    })
    expect(noOrigin.status).toBe(403)
    const tags = await owner.api.get(path)
    expect(tags.status).toBe(200)
    expect(JSON.stringify(tags.body)).not.toContain('Forged')
    const sameSite = await tab.post(path, { name: 'Mine' })
    expect(sameSite.status).toBe(201)
    // A read carries no risk: it needs no Origin.
    expect((await tab.get(path)).status).toBe(200)
  })

  it('changing the password ends the other sessions and keeps this one', async () => {
    const { email, tab } = await ownerWithPassword()
    const other = browser()
    expect((await other.post('/sessions', { email, password: PASSWORD })).status).toBe(201)
    const wrongCurrent = await tab.request('PUT', '/users/me/password', {
      currentPassword: 'not it at all',
      newPassword: 'a brand new passphrase',
    })
    expect(wrongCurrent.status).toBe(401)
    const weak = await tab.request('PUT', '/users/me/password', {
      currentPassword: PASSWORD,
      newPassword: 'password123456',
    })
    expect(weak.status).toBe(400)
    expect(weak.body.code).toBe('WEAK_PASSWORD')
    const changed = await tab.request('PUT', '/users/me/password', {
      currentPassword: PASSWORD,
      newPassword: 'a brand new passphrase',
    })
    expect(changed.status).toBe(200)
    expect(changed.body.sessionsEnded).toBe(1)
    expect((await other.get('/users/me')).status).toBe(401)
    expect((await tab.get('/users/me')).status).toBe(200)
    expect((await browser().post('/sessions', { email, password: PASSWORD })).status).toBe(401)
    expect((await browser().post('/sessions', { email, password: 'a brand new passphrase' })).status).toBe(
      201,
    )
  })

  it('lists sessions, signs one out, and signs out everywhere but here', async () => {
    const { email, tab } = await ownerWithPassword()
    const phone = browser()
    const laptop = browser()
    await phone.post('/sessions', { email, password: PASSWORD, deviceName: 'Phone' })
    await laptop.post('/sessions', { email, password: PASSWORD, deviceName: 'Laptop' })
    const listed = await tab.get('/sessions')
    expect(listed.status).toBe(200)
    expect(listed.body.items).toHaveLength(3)
    expect(listed.body.items.filter((s: { current: boolean }) => s.current)).toHaveLength(1)
    const phoneId = listed.body.items.find((s: { name: string }) => s.name === 'Phone').id
    expect((await tab.request('DELETE', `/sessions/${phoneId}`)).status).toBe(204)
    expect((await phone.get('/users/me')).status).toBe(401)
    expect((await tab.request('DELETE', `/sessions/${phoneId}`)).status).toBe(404)

    const everywhere = await tab.request('DELETE', '/sessions')
    expect(everywhere.body).toEqual({ revoked: 1 })
    expect((await laptop.get('/users/me')).status).toBe(401)
    expect((await tab.get('/users/me')).status).toBe(200)

    const out = await tab.request('DELETE', '/sessions/current')
    expect(out.status).toBe(204)
    expect(out.setCookie).toMatch(/hearth_session=;/)
    expect(tab.cookie).toBeUndefined()
  })

  it('loses /sync within a second when it is signed out', async () => {
    const { owner, tab } = await ownerWithPassword()
    const socket = await rawSocket(server.url, { cookie: tab.cookie!, origin: server.url })
    socket.send({ type: 'hello', householdId: owner.householdId, clientId: newUlid(), cursor: null })
    expect((await socket.next('welcome')).type).toBe('welcome')
    const started = Date.now()
    expect((await tab.request('DELETE', '/sessions')).status).toBe(200)
    expect((await tab.request('DELETE', '/sessions/current')).status).toBe(204)
    expect(await socket.closed).toEqual({ code: 4401, reason: 'KEY_REVOKED' })
    expect(Date.now() - started).toBeLessThan(1000)
  })

  it('loses its note room within a second when it is signed out', async () => {
    const { owner, tab } = await ownerWithPassword()
    const ws = new WebSocket(
      `${server.url.replace(/^http/, 'ws')}/notes/ws/${owner.householdId}/month/2026-11`,
      ['hearth-notes'],
      { headers: { cookie: tab.cookie!, origin: server.url } },
    )
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    )
    await new Promise<void>((resolve, reject) => {
      ws.once('message', () => resolve())
      ws.once('error', reject)
    })
    const started = Date.now()
    expect((await tab.request('DELETE', '/sessions/current')).status).toBe(204)
    expect(await closed).toEqual({ code: 4401, reason: 'KEY_REVOKED' })
    expect(Date.now() - started).toBeLessThan(1000)
  })

  it('opens no socket for another site’s page', async () => {
    const { owner, tab } = await ownerWithPassword()
    const socket = await rawSocket(server.url, { cookie: tab.cookie!, origin: 'https://evil.example' })
    socket.send({ type: 'hello', householdId: owner.householdId, clientId: newUlid(), cursor: null })
    const answer = await socket.next()
    expect(answer).toMatchObject({ type: 'error', code: 'UNAUTHENTICATED' })
    socket.close()
  })

  it('is refused once its idle time has passed', async () => {
    const { owner, tab } = await ownerWithPassword()
    await server.store.db
      .updateTable('api_keys')
      .set({ last_used_at: new Date(Date.now() - 200 * 3_600_000) })
      .where('user_id', '=', owner.userId)
      .where('kind', '=', 'session')
      .execute()
    expect((await tab.get('/users/me')).status).toBe(401)
  })
})

describe('emails', () => {
  it('are unique per server whatever their case', async () => {
    const first = await server.newOwner()
    const email = uniqueEmail()
    expect((await first.api.patch('/users/me', { email })).status).toBe(200)
    const second = await server.newOwner()
    const taken = await second.api.patch('/users/me', { email: email.toUpperCase() })
    expect(taken.status).toBe(409)
    expect(taken.body.code).toBe('EMAIL_TAKEN')
  })
})

describe('an invitation redeemed by signing up', () => {
  it('creates the person with a password and signs them in, with no key', async () => {
    const owner = await server.newOwner()
    const invited = await owner.api.post(`/households/${owner.householdId}/invitations`, { role: 'member' })
    expect(invited.status).toBe(201)
    const code = invited.body.code as string
    const email = uniqueEmail()
    const tab = browser()
    const weak = await tab.post('/invitations/redeem', { code, name: 'Sam', email, password: 'sunshine' })
    expect(weak.status).toBe(400)
    expect(weak.body.code).toBe('WEAK_PASSWORD')
    const noEmail = await tab.post('/invitations/redeem', { code, name: 'Sam', password: PASSWORD })
    expect(noEmail.status).toBe(400)
    expect(noEmail.body.errors).toEqual([expect.objectContaining({ path: 'email' })])

    const joined = await tab.post('/invitations/redeem', { code, name: 'Sam', email, password: PASSWORD })
    expect(joined.status).toBe(201)
    expect(joined.body).toMatchObject({ role: 'member', apiKey: null, session: { current: true } })
    expect(joined.setCookie).toMatch(/^hearth_session=hss_/)
    const households = await tab.get('/households')
    expect(households.body.items.map((h: { id: string }) => h.id)).toEqual([owner.householdId])
    const keys = await tab.get('/users/me/api-keys')
    expect(keys.body.items).toEqual([])
    // Sam signs in again later with the email and password chosen here.
    expect((await browser().post('/sessions', { email, password: PASSWORD })).status).toBe(201)
    expect(
      (await browser().post('/invitations/redeem', { code, name: 'Sam', email, password: PASSWORD })).status,
    ).toBe(410)
  })
})

describe('a session’s rights', () => {
  it('are a viewer’s read scopes for a person invited with the viewer preset', async () => {
    const owner = await server.newOwner()
    const invited = await owner.api.post(`/households/${owner.householdId}/invitations`, { role: 'viewer' })
    expect(invited.status).toBe(201)
    const tab = browser()
    const joined = await tab.post('/invitations/redeem', {
      code: invited.body.code,
      name: 'Viewer',
      email: uniqueEmail(),
      password: PASSWORD,
    })
    expect(joined.status).toBe(201)
    const path = `/households/${owner.householdId}/tags`
    expect((await tab.get(path)).status).toBe(200)
    const write = await tab.post(path, { name: 'Not mine to add' })
    expect(write.status).toBe(403)
    expect(write.body.code).toBe('INSUFFICIENT_SCOPE')
  })
})
