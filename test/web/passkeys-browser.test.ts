/**
 * Passkeys and an authenticator app in a real Chromium: a passkey registered on the devices screen
 * with Chromium's virtual authenticator (CDP `WebAuthn`), then a sign-in with it and no password; its
 * answer replayed is refused. A passkey made in place of a password at the setup link and when
 * joining with an invitation. An authenticator app turned on from the same screen, then asked for
 * after the password.
 */
import type { BrowserContext, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { totpCodeAt } from '../../server/src/auth/totp.ts'
import { chromiumPath } from '../src/browser.ts'
import { cookieBrowser, issueSetupCode } from '../src/cookie-browser.ts'
import { TEST_DATABASE_URL, useTestServer } from '../src/index.ts'
import { useWebBrowser } from './web-build.ts'

const server = useTestServer({ databaseUrl: TEST_DATABASE_URL })
const browser = useWebBrowser()
const PASSWORD = 'seven herons on the mill pond'

/** WebAuthn needs a host name (an IP address is no RP ID): the app is opened at localhost. */
const appOrigin = () => `http://localhost:${server.port}`

async function ownerWithPassword() {
  const owner = await server.newOwner()
  const email = `keys-${owner.userId.toLowerCase()}@example.org`
  const code = await issueSetupCode(server.store, owner)
  const set = await cookieBrowser(server.url).post('/sign-in-links/redeem', {
    code,
    password: PASSWORD,
    email,
  })
  expect(set.status).toBe(201)
  return { owner, email }
}

/** A platform authenticator that holds passkeys and verifies its user, as a laptop's does. */
async function addVirtualAuthenticator(context: BrowserContext, page: Page) {
  const cdp = await context.newCDPSession(page)
  await cdp.send('WebAuthn.enable')
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  })
}

/**
 * The page's first passkey prompt is closed by its person (the browser rejects with
 * `NotAllowedError`, as when the prompt is dismissed or times out); later ones reach the authenticator.
 */
async function closeFirstPasskeyPrompt(page: Page) {
  await page.addInitScript(() => {
    const create = navigator.credentials.create.bind(navigator.credentials)
    let closed = false
    navigator.credentials.create = (options) => {
      if (closed) return create(options)
      closed = true
      return Promise.reject(
        new DOMException('The operation either timed out or was not allowed.', 'NotAllowedError'),
      )
    }
  })
}

/** Whether the user's setup link was used. */
async function linkUsed(userId: string): Promise<boolean> {
  const row = await server.store.db
    .selectFrom('sign_in_links')
    .select('used_at')
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow()
  return row.used_at !== null
}

/** A person's email and how many passkeys and passwords they have. */
async function credentialsOf(userId: string) {
  const count = async (table: 'passkeys' | 'passwords') =>
    (await server.store.db.selectFrom(table).select('user_id').where('user_id', '=', userId).execute()).length
  const user = await server.store.db
    .selectFrom('users')
    .select('email')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow()
  return { email: user.email, passkeys: await count('passkeys'), passwords: await count('passwords') }
}

async function signInWithPassword(page: Page, email: string) {
  await page.goto(`${appOrigin()}/app/`)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
}

async function openDevices(page: Page) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Devices' }).click()
  await page.getByRole('heading', { name: 'Sign-in and security' }).waitFor({ timeout: 30_000 })
}

describe.skipIf(!chromiumPath())('passkeys and an authenticator app in the app', () => {
  it('registers a passkey, renames it, signs in with it without a password, and refuses its answer replayed', async () => {
    const { owner, email } = await ownerWithPassword()
    const context = await browser().newContext()
    const page = await context.newPage()
    try {
      await addVirtualAuthenticator(context, page)
      await signInWithPassword(page, email)
      await page.getByRole('navigation', { name: 'Main' }).waitFor({ timeout: 60_000 })
      await openDevices(page)
      await page.getByText('No passkeys yet').waitFor()
      await page.getByLabel('Passkey name').fill('Work laptop')
      await page.getByRole('button', { name: 'Add a passkey' }).click()
      await page.getByText('Passkey “Work laptop” added').waitFor({ timeout: 30_000 })
      const passkeys = page.getByRole('table', { name: 'Your passkeys' })
      await passkeys.getByText('Work laptop').waitFor()
      await page.getByRole('button', { name: 'Rename Work laptop' }).click()
      await page.getByLabel('New name for Work laptop').fill('Home laptop')
      await page.getByRole('button', { name: 'Save' }).click()
      await passkeys.getByText('Home laptop').waitFor({ timeout: 30_000 })
      const stored = await server.store.db
        .selectFrom('passkeys')
        .selectAll()
        .where('user_id', '=', owner.userId)
        .execute()
      expect(stored).toHaveLength(1)
      expect(stored[0]).toMatchObject({ name: 'Home laptop', last_used_at: null })

      await page.getByRole('button', { name: 'Sign out', exact: true }).click()
      await page.getByRole('heading', { name: 'Welcome to Hearth' }).waitFor()
      const posted = page.waitForRequest(
        (r) => r.url().endsWith('/sessions/passkey') && r.method() === 'POST',
      )
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
      await page.getByRole('navigation', { name: 'Main' }).waitFor({ timeout: 60_000 })
      const [cookie] = await context.cookies(appOrigin())
      expect(cookie).toMatchObject({ name: 'hearth_session', httpOnly: true })
      const me = await fetch(`${server.url}/users/me`, {
        headers: { cookie: `hearth_session=${cookie!.value}` },
      })
      expect((await me.json()).id).toBe(owner.userId)
      const used = await server.store.db
        .selectFrom('passkeys')
        .select(['counter', 'last_used_at'])
        .where('user_id', '=', owner.userId)
        .executeTakeFirstOrThrow()
      expect(used.last_used_at).not.toBeNull()

      // The same answer again (a replay): its challenge is used, so it signs nobody in.
      const body = (await posted).postData()!
      const replayed = await fetch(`${appOrigin()}/sessions/passkey`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: appOrigin() },
        body,
      })
      expect(replayed.status).toBe(400)
      expect((await replayed.json()).code).toBe('WEBAUTHN_CHALLENGE_INVALID')
      expect(replayed.headers.get('set-cookie')).toBeNull()

      // Removing it ends the other sessions (the setup link's and this one's).
      const other = cookieBrowser(server.url)
      expect((await other.post('/sessions', { email, password: PASSWORD })).status).toBe(201)
      await openDevices(page)
      await page.getByRole('button', { name: 'Remove Home laptop' }).click()
      await page
        .getByText(/Passkey “Home laptop” removed\. 2 other sessions signed out\./)
        .waitFor({ timeout: 30_000 })
      expect((await other.get('/users/me')).status).toBe(401)
      await page.getByText('No passkeys yet').waitFor()
    } finally {
      await context.close()
    }
  }, 180_000)

  it('makes a passkey in place of a password at the setup link, after a prompt closed changed nothing', async () => {
    const owner = await server.newOwner()
    const code = await issueSetupCode(server.store, owner)
    const email = `setup-${owner.userId.toLowerCase()}@example.org`
    const context = await browser().newContext()
    const page = await context.newPage()
    try {
      await addVirtualAuthenticator(context, page)
      await closeFirstPasskeyPrompt(page)
      await page.goto(`${appOrigin()}/app/setup?code=${code}`)
      await page.getByLabel('Email').fill(email)
      await page.getByRole('button', { name: 'Use a passkey instead' }).click()
      await expect
        .poll(() => page.getByRole('alert').textContent(), { timeout: 30_000 })
        .toMatch(/No passkey was made: the browser’s prompt was closed or timed out/)
      expect(await linkUsed(owner.userId)).toBe(false)

      await page.getByRole('button', { name: 'Use a passkey instead' }).click()
      await page.getByRole('navigation', { name: 'Main' }).waitFor({ timeout: 60_000 })
      const [cookie] = await context.cookies(appOrigin())
      expect(cookie).toMatchObject({ name: 'hearth_session', httpOnly: true })
      expect(await linkUsed(owner.userId)).toBe(true)
      expect(await credentialsOf(owner.userId)).toEqual({ email, passkeys: 1, passwords: 0 })

      // The passkey is how the owner signs in from now on.
      await page.getByRole('button', { name: 'Sign out', exact: true }).click()
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
      await page.getByRole('navigation', { name: 'Main' }).waitFor({ timeout: 60_000 })
      const [again] = await context.cookies(appOrigin())
      const me = await fetch(`${server.url}/users/me`, {
        headers: { cookie: `hearth_session=${again!.value}` },
      })
      expect((await me.json()).id).toBe(owner.userId)
    } finally {
      await context.close()
    }
  }, 180_000)

  it('joins with an invitation and a passkey, no password asked', async () => {
    const owner = await server.newOwner()
    const invited = await owner.api.post(`/households/${owner.householdId}/invitations`, { role: 'member' })
    expect(invited.status).toBe(201)
    const email = `joiner-${invited.body.id.toLowerCase()}@example.org`
    const context = await browser().newContext()
    const page = await context.newPage()
    try {
      await addVirtualAuthenticator(context, page)
      await page.goto(`${appOrigin()}/app/`)
      await page.getByRole('tab', { name: 'Invitation code' }).click()
      await page.getByLabel('Invitation code').fill(invited.body.code)
      await page.getByRole('button', { name: 'Use a passkey instead' }).click()
      await expect
        .poll(() => page.getByRole('alert').textContent())
        .toMatch(/Fill in your name, your email first/)
      await page.getByLabel('Your name').fill('Sam')
      await page.getByLabel('Email').fill(email)
      await page.getByRole('button', { name: 'Use a passkey instead' }).click()
      await page.getByRole('navigation', { name: 'Main' }).waitFor({ timeout: 60_000 })
      const joined = await server.store.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', email)
        .executeTakeFirstOrThrow()
      expect(await credentialsOf(joined.id)).toEqual({ email, passkeys: 1, passwords: 0 })
      const listed = await owner.api.get(`/households/${owner.householdId}/invitations`)
      expect(listed.body.items.find((i: { id: string }) => i.id === invited.body.id)).toMatchObject({
        status: 'redeemed',
        redeemedBy: joined.id,
      })

      await page.getByRole('button', { name: 'Sign out', exact: true }).click()
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
      await page.getByRole('navigation', { name: 'Main' }).waitFor({ timeout: 60_000 })
      const [cookie] = await context.cookies(appOrigin())
      const me = await fetch(`${server.url}/users/me`, {
        headers: { cookie: `hearth_session=${cookie!.value}` },
      })
      expect((await me.json()).id).toBe(joined.id)
    } finally {
      await context.close()
    }
  }, 180_000)

  it('says so when the browser cannot make passkeys, and leaves the password', async () => {
    const owner = await server.newOwner()
    const code = await issueSetupCode(server.store, owner)
    const context = await browser().newContext()
    const page = await context.newPage()
    try {
      await page.addInitScript(() => {
        delete (window as { PublicKeyCredential?: unknown }).PublicKeyCredential
      })
      await page.goto(`${appOrigin()}/app/setup?code=${code}`)
      await page.getByText('This browser cannot make passkeys: set a password instead.').waitFor()
      expect(await page.getByRole('button', { name: 'Use a passkey instead' }).isDisabled()).toBe(true)
      expect(await page.getByRole('button', { name: 'Set password and sign in' }).isEnabled()).toBe(true)
    } finally {
      await context.close()
    }
  }, 120_000)

  it('turns an authenticator app on, then asks for its code after the password', async () => {
    const { email } = await ownerWithPassword()
    const context = await browser().newContext()
    const page = await context.newPage()
    try {
      await signInWithPassword(page, email)
      await page.getByRole('navigation', { name: 'Main' }).waitFor({ timeout: 60_000 })
      await openDevices(page)
      await page.getByRole('button', { name: 'Add an authenticator app' }).click()
      const secret = await page.getByLabel('Secret (base32)').inputValue({ timeout: 30_000 })
      expect(secret).toMatch(/^[A-Z2-7]{32}$/)
      expect(await page.getByLabel('Setup link for the app').inputValue()).toContain(`secret=${secret}`)
      await page.getByLabel('Code from the app').fill(totpCodeAt(secret, Date.now()))
      await page.getByRole('button', { name: 'Turn on' }).click()
      await page.getByText('The authenticator app is on').waitFor({ timeout: 30_000 })
      await page.getByRole('list', { name: 'Recovery codes' }).waitFor()
      const codes = await page
        .getByRole('list', { name: 'Recovery codes' })
        .getByRole('listitem')
        .allTextContents()
      expect(codes).toHaveLength(10)

      await page.getByRole('button', { name: 'Sign out', exact: true }).click()
      await page.getByRole('heading', { name: 'Welcome to Hearth' }).waitFor()
      await page.getByLabel('Email').fill(email)
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      await page.getByLabel('Authenticator code').fill(totpCodeAt(secret, Date.now() + 30_000))
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      await page.getByRole('navigation', { name: 'Main' }).waitFor({ timeout: 60_000 })
    } finally {
      await context.close()
    }
  }, 180_000)
})
