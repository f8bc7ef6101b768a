/**
 * A person signs in with the server's OpenID Connect provider in a real Chromium: the sign-in
 * screen's "Sign in with" button, the provider, and back in the app with the household open; and
 * the words the screen says when the provider's account is nobody's in Hearth.
 */
import { describe, expect, it } from 'vitest'
import { chromiumPath } from '../src/browser.ts'
import { useTestServer } from '../src/index.ts'
import { useTestProvider } from '../src/oidc-test-provider.ts'
import { useWebBrowser } from './web-build.ts'

const idp = await useTestProvider(() => [`${server.url}/oidc/callback`])
const server = useTestServer({
  oidc: {
    issuer: idp.issuer,
    clientId: idp.clientId,
    clientSecret: idp.clientSecret,
    name: 'Test ID',
    required: false,
  },
})
const browser = useWebBrowser()

describe.skipIf(!chromiumPath())('signing in with OpenID Connect', () => {
  it('offers the provider by name, and comes back signed in with the household open', async () => {
    const owner = await server.newOwner()
    const email = `oidc-app-${owner.userId.toLowerCase()}@example.org`
    await server.store.db.updateTable('users').set({ email }).where('id', '=', owner.userId).execute()
    idp.accounts.set(`app-${owner.userId}`, { email, email_verified: true })
    idp.signingIn = `app-${owner.userId}`
    const context = await browser().newContext()
    const page = await context.newPage()
    try {
      await page.goto(`${server.url}/app/`)
      await page.getByRole('link', { name: 'Sign in with Test ID' }).click()
      await page.getByRole('navigation', { name: 'Main' }).waitFor({ timeout: 60_000 })
      // Cookies are per host, not per port: the provider's (on 127.0.0.1 too) are listed beside ours.
      const cookie = (await context.cookies(server.url)).find((c) => c.name === 'hearth_session')
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' })
      await page.getByRole('link', { name: 'Devices' }).click()
      await expect
        .poll(() => page.getByRole('table', { name: 'Signed-in devices' }).textContent(), { timeout: 30_000 })
        .toContain('(this browser)')
    } finally {
      await context.close()
    }
  }, 120_000)

  it('says in words when no one in Hearth uses the provider’s account', async () => {
    idp.accounts.set('nobody', { email: 'nobody@example.org', email_verified: true })
    idp.signingIn = 'nobody'
    const context = await browser().newContext()
    const page = await context.newPage()
    try {
      await page.goto(`${server.url}/app/`)
      await page.getByRole('link', { name: 'Sign in with Test ID' }).click()
      await expect
        .poll(() => page.getByRole('alert').textContent(), { timeout: 30_000 })
        .toMatch(/No one in Hearth uses this account yet/)
      const names = (await context.cookies(server.url)).map((c) => c.name)
      expect(names).not.toContain('hearth_session')
    } finally {
      await context.close()
    }
  }, 120_000)
})
