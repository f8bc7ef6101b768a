/**
 * The app and the API reference work under the Content-Security-Policy they are sent with
 * (server/src/http/page-security.ts), in a real Chromium: every violation the browser reports,
 * by event or on the console, fails the test.
 */
import type { BrowserContext, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { chromiumPath } from '../src/browser.ts'
import { useTestServer } from '../src/index.ts'
import { useWebBrowser } from './web-build.ts'

const server = useTestServer()
const browser = useWebBrowser()

/** A page whose CSP violations, and console errors naming the policy, are collected. */
async function watchedPage(context: BrowserContext): Promise<{ page: Page; violations: string[] }> {
  const violations: string[] = []
  await context.exposeFunction('reportViolation', (text: string) => violations.push(text))
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) =>
      (window as unknown as { reportViolation(t: string): void }).reportViolation(
        `${e.violatedDirective} ${e.blockedURI}`,
      ),
    )
  })
  const page = await context.newPage()
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text())
  })
  return { page, violations }
}

describe.skipIf(!chromiumPath())('pages under their Content-Security-Policy', () => {
  it('signs in to the app, opens its store and shows the budget and reports with no violation', async () => {
    const owner = await server.newOwner()
    expect((await owner.api.post(`/households/${owner.householdId}/starter-pack`, {})).status).toBe(201)
    const context = await browser().newContext({ viewport: { width: 1280, height: 860 } })
    try {
      const { page, violations } = await watchedPage(context)
      const response = await page.goto(`${server.url}/app/`)
      expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'")
      await page.getByRole('tab', { name: 'API key' }).click()
      await page.getByLabel('API key').fill(owner.api.token)
      await page.getByLabel('This device’s name').fill('Policy check')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await expect
        .poll(() => page.locator('.sync-badge').getAttribute('data-state'), { timeout: 120_000 })
        .toBe('online')
      await page.getByTestId('ready-to-assign').waitFor({ timeout: 30_000 })
      await page.getByRole('link', { name: 'Reports' }).click()
      await page.locator('canvas, svg').first().waitFor({ timeout: 30_000 })
      expect(violations).toEqual([])
    } finally {
      await context.close()
    }
  }, 240_000)

  it('renders the API reference from /openapi.json and tries an operation, with no violation', async () => {
    const context = await browser().newContext()
    try {
      const { page, violations } = await watchedPage(context)
      await page.goto(`${server.url}/docs`)
      const health = page.locator('.opblock', { hasText: '/healthz' })
      await health.locator('.opblock-summary').click()
      // Trying an operation calls the server from the page, as the policy's connect-src allows.
      await health.getByRole('button', { name: 'Try it out' }).click()
      await health.getByRole('button', { name: 'Execute' }).click()
      await health.locator('.live-responses-table').getByText('"status": "ok"').waitFor({ timeout: 10_000 })
      expect(violations).toEqual([])
    } finally {
      await context.close()
    }
  })
})
