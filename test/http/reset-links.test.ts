import { runCli } from '@hearth/server'
import { describe, expect, it } from 'vitest'
import { TEST_DATABASE_URL, useSmtpInbox, useTestServer } from '../src/index.ts'

const inbox = useSmtpInbox()
const { mail } = inbox

const server = useTestServer({
  databaseUrl: TEST_DATABASE_URL,
  get notifications() {
    return inbox.settings
  },
})

const PASSWORD = 'plum tree under snow 42'
const NEW_PASSWORD = 'a kettle of fish at noon'

/** Posts as a page of the test server would, and answers the status, body and cookie set. */
async function post(path: string, body: unknown, cookie?: string) {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url, ...(cookie && { cookie }) },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: await res.json(), cookie: res.headers.get('set-cookie')?.split(';')[0] }
}

/** A member with an email and a password, signed in once. */
async function memberWithPassword() {
  const owner = await server.newOwner()
  const member = await server.newMember(owner)
  const email = `member-${member.userId.toLowerCase()}@example.org`
  expect((await member.api.patch('/users/me', { email })).status).toBe(200)
  const first = await member.api.post(`/households/${owner.householdId}/members/${member.userId}/reset-link`)
  expect(first.status).toBe(403)
  expect(first.body.code).toBe('OWNER_ONLY')
  const setup = await owner.api.post(`/households/${owner.householdId}/members/${member.userId}/reset-link`)
  expect(setup.status).toBe(201)
  const signedIn = await post('/sign-in-links/redeem', { code: setup.body.code, password: PASSWORD })
  expect(signedIn.status).toBe(201)
  return { owner, member, email, cookie: signedIn.cookie! }
}

describe('reset links', () => {
  it('an owner issues one, it is emailed, and setting the password ends the member’s sessions', async () => {
    const { owner, member, email, cookie } = await memberWithPassword()
    mail.length = 0
    const issued = await owner.api.post(
      `/households/${owner.householdId}/members/${member.userId}/reset-link`,
    )
    expect(issued.status).toBe(201)
    expect(issued.body).toMatchObject({ userId: member.userId, emailed: true })
    expect(issued.body.url).toBe(`${server.url}/app/setup?code=${issued.body.code}`)
    expect(mail).toHaveLength(1)
    expect(mail[0]!.to).toEqual([email])
    expect(mail[0]!.raw.replace(/=\r\n/g, '')).toContain(issued.body.code)

    const weak = await post('/sign-in-links/redeem', { code: issued.body.code, password: 'password2024' })
    expect(weak.body.code).toBe('WEAK_PASSWORD')
    const reset = await post('/sign-in-links/redeem', { code: issued.body.code, password: NEW_PASSWORD })
    expect(reset.status).toBe(201)
    expect(reset.body).toMatchObject({ userId: member.userId, email })
    // The session from before the reset has ended; the old password no longer signs in.
    const before = await fetch(`${server.url}/users/me`, { headers: { cookie } })
    expect(before.status).toBe(401)
    expect((await post('/sessions', { email, password: PASSWORD })).status).toBe(401)
    expect((await post('/sessions', { email, password: NEW_PASSWORD })).status).toBe(201)
    const again = await post('/sign-in-links/redeem', {
      code: issued.body.code,
      password: `${NEW_PASSWORD}!`,
    })
    expect(again.status).toBe(410)
    expect(again.body.code).toBe('LINK_USED')
  })

  it('a newer link replaces an unused one; a stranger is not found', async () => {
    const { owner, member } = await memberWithPassword()
    const path = `/households/${owner.householdId}/members/${member.userId}/reset-link`
    const older = (await owner.api.post(path)).body.code
    const newer = (await owner.api.post(path)).body.code
    expect((await post('/sign-in-links/redeem', { code: older, password: NEW_PASSWORD })).body.code).toBe(
      'LINK_USED',
    )
    expect((await post('/sign-in-links/redeem', { code: newer, password: NEW_PASSWORD })).status).toBe(201)
    const stranger = await server.newOwner()
    const answer = await owner.api.post(
      `/households/${owner.householdId}/members/${stranger.userId}/reset-link`,
    )
    expect(answer.status).toBe(404)
  })

  it('the CLI prints a reset link and signs a person out everywhere', async () => {
    const { member, email, cookie } = await memberWithPassword()
    const out: string[] = []
    const io = {
      env: { HEARTH_PUBLIC_URL: server.url },
      stdout: (t: string) => out.push(t),
      stderr: (t: string) => out.push(t),
      store: server.store,
    }
    expect(await runCli(['user', 'sessions', '--user', member.userId], io)).toBe(0)
    expect(out.join('')).toMatch(/Web browser/)
    expect(await runCli(['user', 'sessions', '--user', member.userId, '--revoke-all'], io)).toBe(0)
    expect(out.join('')).toContain('Signed out 1 session(s).')
    expect((await fetch(`${server.url}/users/me`, { headers: { cookie } })).status).toBe(401)

    out.length = 0
    expect(await runCli(['user', 'reset-password', '--user', member.userId], io)).toBe(0)
    const code = /code=(hsl_[\w-]+)/.exec(out.join(''))?.[1]
    expect(code).toBeDefined()
    expect((await post('/sign-in-links/redeem', { code, password: NEW_PASSWORD })).status).toBe(201)
    expect((await post('/sessions', { email, password: NEW_PASSWORD })).status).toBe(201)
  })
})
