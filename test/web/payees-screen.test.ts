/**
 * The Payees screen in Chromium through the real server: every payee can be merged into any other,
 * the list of other payees opening on the row asked for only (a list on every row was n² options,
 * which took the screen 30 s to render at 440 payees in bench:web), and the merge is seen over REST.
 */
import { describe, expect, it } from 'vitest'
import { expectOk } from '../src/answers.ts'
import { chromiumPath } from '../src/browser.ts'
import { useTestServer } from '../src/index.ts'
import { signInToApp } from './app-sign-in.ts'
import { go, settled } from './screen-checks.ts'
import { useWebBrowser } from './web-build.ts'

const server = useTestServer()
const browser = useWebBrowser()

describe.skipIf(!chromiumPath())('the Payees screen', () => {
  it('merges a payee into another chosen on its row', { timeout: 300_000 }, async () => {
    const owner = await server.newOwner()
    const h = `/households/${owner.householdId}`
    const account = await expectOk(owner.api.post(`${h}/accounts`, { name: 'Checking', type: 'cash' }))
    for (const payeeName of ['Corner Shop', 'Bakery', 'Cornershop Ltd'])
      await expectOk(
        owner.api.post(`${h}/transactions`, {
          accountId: account.id,
          date: '2026-11-02',
          payeeName,
          amountCents: '-1000',
        }),
      )
    const payees = async () =>
      ((await expectOk(owner.api.get(`${h}/payees`))).items as { id: string; name: string }[]).map(
        (p) => p.name,
      )
    expect((await payees()).sort()).toEqual(['Bakery', 'Corner Shop', 'Cornershop Ltd'])

    const context = await browser().newContext({ viewport: { width: 1280, height: 900 } })
    try {
      const page = await context.newPage()
      await signInToApp(page, { url: server.url, token: owner.api.token!, device: 'Payees' })
      await page.locator('main h1').first().waitFor({ timeout: 120_000 })
      await go(page, '/payees')
      await settled(page)
      await page.getByRole('button', { name: 'Merge Bakery into…' }).waitFor({ timeout: 60_000 })
      // No row lists the other payees until asked.
      expect(await page.locator('table select').count()).toBe(0)
      await page.getByRole('button', { name: 'Merge Cornershop Ltd into…' }).click()
      const into = page.getByLabel('Merge Cornershop Ltd into')
      await expect.poll(() => into.evaluate((e) => e === document.activeElement)).toBe(true)
      expect(await page.locator('table select').count()).toBe(1)
      expect(await into.locator('option').allTextContents()).toEqual([
        'Choose a payee',
        'Bakery',
        'Corner Shop',
      ])
      await into.selectOption({ label: 'Corner Shop' })
      await page.getByRole('button', { name: 'Merge Cornershop Ltd', exact: true }).click()
      await page.getByText('Merged Cornershop Ltd into Corner Shop.').waitFor({ timeout: 60_000 })
      await expect
        .poll(async () => (await payees()).sort(), { timeout: 60_000 })
        .toEqual(['Bakery', 'Corner Shop'])
      expect(await page.locator('table select').count()).toBe(0)
    } finally {
      await context.close()
    }
  })
})
