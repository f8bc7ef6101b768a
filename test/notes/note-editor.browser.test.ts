import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { ulid } from 'ulidx'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, launchChromium } from '../src/browser.ts'
import { TEST_DATABASE_URL, type TestMember, useTestServer } from '../src/index.ts'
import { eventually } from '../sync/devices.ts'
import { signInToApp } from '../web/app-sign-in.ts'

// The built household app (`npm run build -w @hearth/web`, run by `npm ci`/`npm install`) served
// by the real server at /app, in a real Chromium: two members edit one account's note.
const WEB_DIST = join(import.meta.dirname, '../../packages/web/dist/index.html')
const server = useTestServer({ databaseUrl: TEST_DATABASE_URL })
const SHOTS = join(import.meta.dirname, '../../test-artifacts/screenshots')

let browser: Browser
beforeAll(async () => {
  if (chromiumPath()) browser = await launchChromium()
}, 60_000)
afterAll(async () => {
  await browser?.close()
})

/** A browser context signed in as `member` through the sign-in screen, on the account's register. */
async function signedIn(member: TestMember, deviceName: string, accountId: string) {
  const context = await browser.newContext()
  const page = await context.newPage()
  await signInToApp(page, { url: server.url, token: member.api.token!, device: deviceName })
  // The app opens on the budget once its replica is open; then the register of the account.
  await page.getByRole('link', { name: 'Accounts' }).waitFor({ timeout: 120_000 })
  await page.goto(`${server.url}/app/accounts/${accountId}`)
  return { context, page }
}

const noteBox = (page: Page) => page.getByRole('textbox', { name: 'Account note', exact: true })

describe.skipIf(!chromiumPath() || !existsSync(WEB_DIST))(
  'the note editor in Chromium',
  { timeout: 180_000 },
  () => {
    it('two members edit one note live and converge; one edits offline and merges when back', async () => {
      const owner = await server.newOwner()
      const partner = await server.newMember(owner, 'member')
      const H = `/households/${owner.householdId}`
      const accountId = ulid()
      expect(
        (await owner.api.post(`${H}/accounts`, { id: accountId, name: 'Joint', type: 'cash' })).status,
      ).toBe(201)
      const contexts: BrowserContext[] = []
      try {
        const a = await signedIn(owner, 'Alice Laptop', accountId)
        const b = await signedIn(partner, 'Bob Phone', accountId)
        contexts.push(a.context, b.context)
        const boxA = noteBox(a.page)
        const boxB = noteBox(b.page)
        await boxA.waitFor({ timeout: 90_000 })
        await boxB.waitFor({ timeout: 90_000 })
        await expect.poll(() => boxA.isEnabled(), { timeout: 60_000 }).toBe(true)
        await expect.poll(() => boxB.isEnabled(), { timeout: 60_000 }).toBe(true)

        // Live: each sees the other's typing, and who else is editing.
        await boxA.click()
        await a.page.keyboard.type('Rent from this one.')
        await expect.poll(() => boxB.inputValue(), { timeout: 20_000 }).toBe('Rent from this one.')
        await boxB.click()
        await b.page.keyboard.press('End')
        await b.page.keyboard.type(' Bills too.')
        // A's caret stayed after its own text while B's edit arrived: A keeps typing in place.
        await a.page.keyboard.type('!')
        const both = 'Rent from this one.! Bills too.'
        await expect.poll(() => boxA.inputValue(), { timeout: 20_000 }).toBe(both)
        await expect.poll(() => boxB.inputValue(), { timeout: 20_000 }).toBe(both)
        // Who is editing is named by the member's profile (the server's word), not by the device.
        await expect.poll(() => a.page.getByText('Member is editing').count(), { timeout: 20_000 }).toBe(1)
        await expect.poll(() => b.page.getByText('Owner is editing').count(), { timeout: 20_000 }).toBe(1)
        await eventually(async () =>
          expect((await owner.api.get(`${H}/accounts/${accountId}/note`)).body.text).toBe(both),
        )
        await a.page.screenshot({ path: join(SHOTS, 'note-editor-live.png'), fullPage: true })

        // B goes offline, edits; A edits meanwhile; back online, both hold both edits. The note
        // follows the browser's offline event: without it, y-websocket notices only after 30 s of
        // silence, so a bound well under that fails the test if the note stops following it.
        await b.context.setOffline(true)
        await expect
          .poll(() => b.page.locator('.note-status').innerText(), { timeout: 15_000 })
          .toMatch(/^Offline/)
        await expect.poll(() => b.page.getByText('Owner is editing').count()).toBe(0)
        await boxB.click()
        await b.page.keyboard.press('Control+Home')
        await b.page.keyboard.type('(Offline edit) ')
        await boxA.click()
        await a.page.keyboard.press('Control+End')
        await a.page.keyboard.type(' Online edit.')
        await expect.poll(() => boxB.inputValue()).toBe(`(Offline edit) ${both}`)
        await b.page.screenshot({ path: join(SHOTS, 'note-editor-offline.png'), fullPage: true })
        await b.context.setOffline(false)
        const merged = `(Offline edit) ${both} Online edit.`
        await expect.poll(() => boxB.inputValue(), { timeout: 60_000 }).toBe(merged)
        await expect.poll(() => boxA.inputValue(), { timeout: 60_000 }).toBe(merged)
        await eventually(async () =>
          expect((await owner.api.get(`${H}/accounts/${accountId}/note`)).body.text).toBe(merged),
        )
      } finally {
        for (const context of contexts) await context.close()
      }
    })
  },
)
