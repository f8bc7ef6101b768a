import { describe, expect, it } from 'vitest'
import { cookieBrowser } from '../src/cookie-browser.ts'
import { TEST_DATABASE_URL, type TestMember, useSmtpInbox, useTestServer } from '../src/index.ts'

const inbox = useSmtpInbox()
const { mail } = inbox

const server = useTestServer({
  databaseUrl: TEST_DATABASE_URL,
  get notifications() {
    return inbox.settings
  },
})
const noMail = useTestServer()

const PASSWORD = 'plum tree under snow 42'
let emails = 0
const uniqueEmail = () => `person-${Date.now()}-${++emails}@example.org`

/** The code of the last verification link mailed to `email`. */
function mailedCode(email: string): string {
  const sent = mail.filter((m) => m.to.includes(email)).at(-1)
  expect(sent, `a mail to ${email}`).toBeDefined()
  const code = /\/app\/verify-email\?code=(hsl_[\w-]+)/.exec(sent!.text)?.[1]
  expect(code).toBeDefined()
  return code!
}

/** Signs a new person up with an invitation of `owner`, with an email and a password, in a browser. */
async function signUp(url: string, owner: TestMember, email: string) {
  const invited = await owner.api.post(`/households/${owner.householdId}/invitations`, { role: 'member' })
  expect(invited.status).toBe(201)
  const tab = cookieBrowser(url)
  const joined = await tab.post('/invitations/redeem', {
    code: invited.body.code,
    name: 'Sam',
    email,
    password: PASSWORD,
  })
  expect(joined.status).toBe(201)
  return tab
}

describe('email verification, with mail', () => {
  it('mails a link at sign-up; the link verifies the email once, and GET /users/me shows it', async () => {
    const owner = await server.newOwner()
    const email = uniqueEmail()
    const tab = await signUp(server.url, owner, email)
    expect((await tab.get('/users/me')).body).toMatchObject({ email, emailVerifiedAt: null })
    const code = mailedCode(email)
    expect(mail.filter((m) => m.to.includes(email)).at(-1)!.text).toContain(
      `${server.url}/app/verify-email?code=`,
    )

    // Anyone holding the link verifies with it, signed in or not (a phone's mail app).
    const wrong = await cookieBrowser(server.url).post('/email-verifications/verify', { code: `${code}x` })
    expect(wrong.status).toBe(404)
    const verified = await cookieBrowser(server.url).post('/email-verifications/verify', { code })
    expect(verified.status).toBe(200)
    expect(verified.body).toMatchObject({ email, emailVerifiedAt: expect.any(String) })
    expect((await tab.get('/users/me')).body.emailVerifiedAt).toBe(verified.body.emailVerifiedAt)
    const again = await tab.post('/email-verifications/verify', { code })
    expect(again.status).toBe(410)
    expect(again.body.code).toBe('LINK_USED')
    const already = await tab.post('/users/me/email-verification')
    expect(already.status).toBe(409)
    expect(already.body.code).toBe('EMAIL_ALREADY_VERIFIED')
  })

  it('a changed email is unverified and mailed a link; sending again replaces it, up to a limit', async () => {
    const owner = await server.newOwner()
    const first = uniqueEmail()
    const tab = await signUp(server.url, owner, first)
    expect((await tab.post('/email-verifications/verify', { code: mailedCode(first) })).status).toBe(200)

    // A change of case is the same email: still verified, nothing mailed.
    const mailsBefore = mail.length
    const cased = await tab.request('PATCH', '/users/me', { email: first.toUpperCase() })
    expect(cased.body.emailVerifiedAt).not.toBeNull()
    expect(mail.length).toBe(mailsBefore)

    const second = uniqueEmail()
    const changed = await tab.request('PATCH', '/users/me', { email: second })
    expect(changed.status).toBe(200)
    expect(changed.body).toMatchObject({ email: second, emailVerifiedAt: null })
    const older = mailedCode(second)
    const resent = await tab.post('/users/me/email-verification')
    expect(resent.status).toBe(202)
    expect(resent.body).toMatchObject({ email: second, expiresAt: expect.any(String) })
    const newer = mailedCode(second)
    expect(newer).not.toBe(older)
    expect((await tab.post('/email-verifications/verify', { code: older })).body.code).toBe('LINK_USED')

    // Three mails in 15 minutes per person (the sign-up's, the change's, one sent again); the next is refused.
    const limited = await tab.post('/users/me/email-verification')
    expect(limited.status).toBe(429)
    expect(limited.body.code).toBe('RATE_LIMITED')
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    const latest = mailedCode(second)

    // Changed again while held back: nothing is mailed, and the last link, for the old email, no longer verifies.
    const third = uniqueEmail()
    expect((await tab.request('PATCH', '/users/me', { email: third })).status).toBe(200)
    expect(mail.some((m) => m.to.includes(third))).toBe(false)
    const stale = await tab.post('/email-verifications/verify', { code: latest })
    expect(stale.status).toBe(410)
    expect(stale.body.code).toBe('EMAIL_CHANGED')
    expect((await tab.get('/users/me')).body).toMatchObject({ email: third, emailVerifiedAt: null })
  })

  it('an API key without write:profile cannot send one; a query is refused', async () => {
    const owner = await server.newOwner()
    const key = await owner.api.post('/users/me/api-keys', { name: 'read only', scopes: ['read:profile'] })
    expect(key.status).toBe(201)
    const { apiClient } = await import('../src/index.ts')
    const narrow = apiClient(server.url, key.body.key)
    expect((await narrow.post('/users/me/email-verification')).body.code).toBe('INSUFFICIENT_SCOPE')
    expect((await owner.api.post('/users/me/email-verification?x=1')).status).toBe(400)
  })
})

describe('email verification, without mail', () => {
  it('mails nothing and says so when asked to send', async () => {
    const owner = await noMail.newOwner()
    const email = uniqueEmail()
    const tab = await signUp(noMail.url, owner, email)
    expect((await tab.get('/users/me')).body).toMatchObject({ email, emailVerifiedAt: null })
    const send = await tab.post('/users/me/email-verification')
    expect(send.status).toBe(409)
    expect(send.body.code).toBe('MAIL_NOT_CONFIGURED')
    expect(mail.some((m) => m.to.includes(email))).toBe(false)
  })
})
