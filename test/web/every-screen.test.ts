/**
 * Every screen of the app, with data, in Chromium through the real server: no serious or critical
 * axe-core violation on any of them (issue 41), at desktop size and at phone size (360×740 with
 * touch, mobile emulation), where the main navigation folds into a menu button and no screen
 * scrolls sideways. The routes are the ones the sidebar lists (app.tsx's ROUTES), plus an
 * account's register and each settings page.
 */
import type { BrowserContext, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { expectOk } from '../src/answers.ts'
import { chromiumPath } from '../src/browser.ts'
import { type TestMember, useTestServer } from '../src/index.ts'
import { signInToApp } from './app-sign-in.ts'
import { axeViolations, go, overflowing, settled } from './screen-checks.ts'
import { useWebBrowser } from './web-build.ts'

const server = useTestServer()
const browser = useWebBrowser()

/** The first of the month `delta` months from today's (UTC). */
function monthStart(delta: number): string {
  const now = new Date()
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + delta, 1)).toISOString().slice(0, 10)
}

/** A household with something on every screen: accounts, transactions, a rule, a bill, a loan. */
async function seed(owner: TestMember): Promise<{ checkingId: string }> {
  const { api } = owner
  const h = `/households/${owner.householdId}`
  await expectOk(api.post(`${h}/starter-pack`, {}))
  const categories = (await expectOk(api.get(`${h}/categories`))).items as { id: string; name: string }[]
  const groceries = categories.find((c) => c.name === 'Groceries')!.id
  const checking = await expectOk(
    api.post(`${h}/accounts`, {
      name: 'Checking',
      type: 'cash',
      openingBalanceCents: '250000',
      openingBalanceDate: monthStart(-3),
    }),
  )
  await expectOk(api.post(`${h}/accounts`, { name: 'Visa', type: 'credit' }))
  for (let m = -3; m <= 0; m++) {
    for (const [payeeName, amountCents] of [
      ['Green Grocer', '-8450'],
      ['Bakery', '-1205'],
      ['Employer', '320000'],
    ] as const) {
      await expectOk(
        api.post(`${h}/transactions`, {
          accountId: checking.id,
          date: monthStart(m).replace(/-01$/, '-03'),
          payeeName,
          amountCents,
          ...(payeeName !== 'Employer' && { categoryId: groceries }),
        }),
      )
    }
  }
  await expectOk(
    api.post(`${h}/rules`, {
      name: 'Bakery is groceries',
      predicate: { combinator: 'all', conditions: [{ field: 'payee_name', op: 'is', value: 'Bakery' }] },
      action: { setCategoryId: groceries },
    }),
  )
  const payees = (await expectOk(api.get(`${h}/payees`))).items as { id: string; name: string }[]
  await expectOk(
    api.post(`${h}/recurrences`, {
      name: 'Rent',
      accountId: checking.id,
      amountCents: -150_000,
      payeeId: payees[0]!.id,
      frequency: 'monthly',
      dayOfMonth: 1,
      startDate: monthStart(-2),
    }),
  )
  const loan = await expectOk(api.post(`${h}/accounts`, { name: 'Mortgage', type: 'loan' }))
  await expectOk(
    api.put(`${h}/accounts/${loan.id}/loan-terms`, {
      effectiveDate: monthStart(-15),
      principalCents: 20_000_000,
      annualRatePercent: '6.5',
      termMonths: 360,
      firstPaymentDate: monthStart(-14),
    }),
  )
  return { checkingId: checking.id }
}

/** The sidebar's routes (app.tsx's ROUTES, as the app lists them), then the register and settings pages. */
async function screens(page: Page, checkingId: string): Promise<string[]> {
  const hrefs = await page
    .getByRole('navigation', { name: 'Main' })
    .locator('.nav-list a.nav-link:not(.account-link)')
    .evaluateAll((links) => links.map((a) => new URL((a as HTMLAnchorElement).href).pathname.slice(4)))
  expect(hrefs.length).toBeGreaterThan(10)
  return [...hrefs, `/accounts/${checkingId}`, '/settings/keys', '/settings/webhooks', '/settings/export']
}

async function signedIn(context: BrowserContext, owner: TestMember, device: string): Promise<Page> {
  const page = await context.newPage()
  await signInToApp(page, { url: server.url, token: owner.api.token!, device })
  await page.locator('main h1').first().waitFor({ timeout: 120_000 })
  return page
}

describe.skipIf(!chromiumPath())('every screen of the app', () => {
  it('has no serious or critical accessibility violation', { timeout: 600_000 }, async () => {
    const owner = await server.newOwner()
    const { checkingId } = await seed(owner)
    // axe is injected as a script of the page, which the app's Content-Security-Policy would refuse.
    const context = await browser().newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true })
    try {
      const page = await signedIn(context, owner, 'Axe')
      const paths = await screens(page, checkingId)
      const found: string[] = []
      for (const path of paths) {
        await go(page, path)
        await settled(page)
        found.push(...(await axeViolations(page, path)))
      }
      // The sync status is announced: a live region.
      expect(await page.locator('.sync-badge').getAttribute('aria-live')).toBe('polite')
      expect(found).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('is usable at 360×740 on a phone: a menu button, no sideways scroll, no violation', {
    timeout: 600_000,
  }, async () => {
    const owner = await server.newOwner()
    const { checkingId } = await seed(owner)
    const context = await browser().newContext({
      viewport: { width: 360, height: 740 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
      bypassCSP: true,
    })
    try {
      const page = await signedIn(context, owner, 'Phone')
      // The main navigation is folded behind a menu button, which opens it and closes on a choice.
      const menu = page.getByRole('button', { name: 'Menu' })
      const nav = page.getByRole('navigation', { name: 'Main' })
      expect(await nav.isVisible()).toBe(false)
      await menu.tap()
      expect(await menu.getAttribute('aria-expanded')).toBe('true')
      await nav.getByRole('link', { name: 'Reports', exact: true }).tap()
      await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor()
      expect(await nav.isVisible()).toBe(false)

      await menu.tap()
      const paths = await screens(page, checkingId)
      await menu.tap()
      const wide: string[] = []
      const found: string[] = []
      for (const path of paths) {
        await go(page, path)
        await settled(page)
        const width = await page.evaluate(() => document.documentElement.scrollWidth)
        if (width > 360) wide.push(`${path}: ${width}px (${await overflowing(page)})`)
        found.push(...(await axeViolations(page, path)))
      }
      expect(wide).toEqual([])
      expect(found).toEqual([])
    } finally {
      await context.close()
    }
  })
})
