/**
 * Email verification in the app (issue 37), in Chromium against a real SMTP server on loopback: a
 * person who joins by invitation is mailed a link; Sign-in and security says their email is not
 * verified and Send again mails a new link; the replaced link is refused in words; the newest one
 * verifies the email on the verify page, signed out as well as in; and the note then says so.
 */
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { chromiumPath } from '../src/browser.ts'
import { useSmtpInbox, useTestServer } from '../src/index.ts'
import { joinWithInvitation } from './app-sign-in.ts'
import { useWebBrowser } from './web-build.ts'

const inbox = useSmtpInbox()
const server = useTestServer({
  get notifications() {
    return inbox.settings
  },
})
const browser = useWebBrowser()

/** The codes of the verification links mailed so far, oldest first, with the address they went to. */
function verificationLinks(): { to: string; code: string }[] {
  return inbox.mail.flatMap((m) => {
    const code = /\/app\/verify-email\?code=(hsl_[\w-]+)/.exec(m.text)?.[1]
    return code ? [{ to: m.to[0]!, code }] : []
  })
}

async function openSecurity(page: Page) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Devices' }).click()
  await page.getByRole('heading', { name: 'Sign-in and security' }).waitFor({ timeout: 60_000 })
}

describe.skipIf(!chromiumPath())('email verification in the app', () => {
  it('says an email is not verified, mails the link again, and verifies it from the newest link only', {
    timeout: 300_000,
  }, async () => {
    const owner = await server.newOwner()
    const invited = await owner.api.post(`/households/${owner.householdId}/invitations`, { role: 'member' })
    expect(invited.status).toBe(201)
    const context = await browser().newContext({ viewport: { width: 1280, height: 900 } })
    const signedOut = await browser().newContext({ viewport: { width: 1280, height: 900 } })
    try {
      const page = await context.newPage()
      const before = verificationLinks().length
      await joinWithInvitation(page, {
        url: server.url,
        code: invited.body.code,
        name: 'Sam',
        device: 'Sam laptop',
      })
      await page.locator('#main-nav').waitFor({ state: 'attached', timeout: 120_000 })
      await expect.poll(() => verificationLinks().length, { timeout: 30_000 }).toBe(before + 1)
      const first = verificationLinks().at(-1)!
      const email = first.to

      // Not verified yet: the note names the email, and Send again mails a new link.
      await openSecurity(page)
      const note = page.locator('[data-email-verification="unverified"]')
      await note.waitFor({ timeout: 30_000 })
      expect(await note.textContent()).toContain(`Your email ${email} is not verified`)
      await note.getByRole('button', { name: 'Send again' }).click()
      await note.getByRole('status').waitFor({ timeout: 30_000 })
      expect(await note.getByRole('status').textContent()).toBe(`A new link is on its way to ${email}.`)
      await expect
        .poll(() => verificationLinks().filter((l) => l.to === email).length, { timeout: 30_000 })
        .toBe(2)
      const newest = verificationLinks().at(-1)!
      expect(newest.code).not.toBe(first.code)

      // The link it replaced is refused, in words, and verifies nothing.
      await page.goto(`${server.url}/app/verify-email?code=${first.code}`)
      const refused = page.getByRole('alert')
      await refused.waitFor({ timeout: 30_000 })
      expect((await refused.textContent())?.length).toBeGreaterThan(10)
      expect(await page.getByRole('status').count()).toBe(0)
      const me = () =>
        page.evaluate(
          async () => (await (await fetch('/users/me')).json()) as { emailVerifiedAt: string | null },
        )
      expect((await me()).emailVerifiedAt).toBeNull()

      // The newest link verifies it, opened in a browser that is not signed in.
      const elsewhere = await signedOut.newPage()
      await elsewhere.goto(`${server.url}/app/verify-email?code=${newest.code}`)
      const verified = elsewhere.getByRole('status')
      await verified.waitFor({ timeout: 30_000 })
      expect(await verified.textContent()).toBe(`Your email ${email} is verified. Thank you.`)
      // Once only.
      await elsewhere.reload()
      await elsewhere.getByRole('alert').waitFor({ timeout: 30_000 })
      expect(await elsewhere.getByRole('status').count()).toBe(0)

      // Signed in, the note is gone, and the server says when.
      expect((await me()).emailVerifiedAt).not.toBeNull()
      await page.getByRole('link', { name: 'Open Hearth' }).click()
      await openSecurity(page)
      const done = page.locator('[data-email-verification="verified"]')
      await done.waitFor({ timeout: 30_000 })
      expect(await done.textContent()).toBe(`Your email ${email} is verified.`)
      expect(await page.locator('[data-email-verification="unverified"]').count()).toBe(0)
    } finally {
      await context.close()
      await signedOut.close()
    }
  })
})
