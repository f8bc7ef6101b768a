/**
 * The budget paints before the replica opens (packages/web/src/screen-cache.ts), in a real
 * Chromium: PGlite's files are held back at the network, so the replica cannot open until the
 * test lets them through, and what the page shows meanwhile can only come from the last start.
 */
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { chromiumPath } from '../src/browser.ts'
import { useTestServer } from '../src/index.ts'
import { useWebBrowser } from './web-build.ts'

const server = useTestServer()
const browser = useWebBrowser()

const syncState = (page: Page) => page.locator('.sync-badge').getAttribute('data-state')

describe.skipIf(!chromiumPath())('the budget before the replica opens', () => {
  it('paints the month it showed last time at once, and an assignment made meanwhile lands once it opens', async () => {
    await paintsThenLands({ emptied: false })
  }, 300_000)

  // A replica's files are flushed after the commits they hold, so a reload soon after the first
  // snapshot can find none of it: the assignment waits for the rows rather than being refused on
  // an empty replica (and lost).
  it('keeps an assignment made meanwhile when the replica reopens empty, until its rows are in', async () => {
    await paintsThenLands({ emptied: true })
  }, 300_000)
})

async function paintsThenLands(options: { emptied: boolean }) {
  {
    const owner = await server.newOwner()
    const h = `/households/${owner.householdId}`
    expect((await owner.api.patch(h, { baseCurrency: 'USD' })).status).toBe(200)
    expect((await owner.api.post(`${h}/starter-pack`, {})).status).toBe(201)
    const categories = (await owner.api.get(`${h}/categories`)).body.items as { id: string; name: string }[]
    const groceries = categories.find((c) => c.name === 'Groceries')!.id
    const month = new Date().toISOString().slice(0, 7)
    const cell = `${h}/budgets/${month}/categories/${groceries}`
    expect((await owner.api.patch(cell, { assignedCents: '10000' })).status).toBe(200)

    // The service worker would answer PGlite's files from its cache, past the test's hold.
    const context = await browser().newContext({
      serviceWorkers: 'block',
      viewport: { width: 1280, height: 860 },
    })
    try {
      const page = await context.newPage()
      await page.goto(`${server.url}/app/`)
      await page.getByRole('tab', { name: 'API key' }).click()
      await page.getByLabel('API key').fill(owner.api.token)
      await page.getByLabel('This device’s name').fill('First paint')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await expect.poll(() => syncState(page), { timeout: 120_000 }).toBe('online')
      const assigned = page.getByLabel('Assigned to Groceries', { exact: true })
      await expect.poll(() => assigned.inputValue(), { timeout: 30_000 }).toBe('100.00')
      const readyToAssign = await page.getByTestId('ready-to-assign').textContent()
      expect(readyToAssign).toContain('−$100.00')

      let release = () => {}
      const held = new Promise<void>((resolve) => {
        release = resolve
      })
      let asked = 0
      await context.route(/\/assets\/pglite-[^/]*\.(wasm|data)$/, async (route) => {
        asked++
        await held
        await route.continue()
      })
      if (options.emptied) {
        // Deleted once this page's replica closes its database, before the reloaded page opens it.
        await page.evaluate(() => {
          const session = JSON.parse(localStorage.getItem('hearth.session')!) as { store: string }
          indexedDB.deleteDatabase(`hearth-replica:${session.store.slice('idb://'.length)}`)
        })
      }
      await page.reload()
      // The month as it was, editable, while the replica still waits for PGlite's files.
      await assigned.waitFor({ timeout: 30_000 })
      expect(await assigned.inputValue()).toBe('100.00')
      expect(await assigned.isEnabled()).toBe(true)
      expect(await page.getByTestId('ready-to-assign').textContent()).toBe(readyToAssign)
      expect(await syncState(page)).toBe('opening')
      await assigned.fill('250')
      await assigned.press('Enter')
      await expect.poll(() => asked, { timeout: 30_000 }).toBeGreaterThan(0)
      expect(await syncState(page)).toBe('opening')
      expect((await owner.api.get(cell)).body.assignedCents).toBe('10000')

      release()
      await expect.poll(() => syncState(page), { timeout: 120_000 }).toBe('online')
      await expect
        .poll(async () => (await owner.api.get(cell)).body.assignedCents, { timeout: 30_000 })
        .toBe('25000')
        .catch(async (e) => {
          // What the page said and where its sync stood, for a failure's message.
          const said = await page.locator('[role="alert"]').allTextContents()
          const status = await page.evaluate(() => {
            const h = (globalThis as { hearth?: { sync: { status: unknown } } }).hearth
            return JSON.stringify(h?.sync.status ?? null)
          })
          throw new Error(`${(e as Error).message}; alerts ${JSON.stringify(said)}; sync ${status}`)
        })
      // The replica re-reads the month after its own write; on a busy machine that can trail the push.
      await expect.poll(() => assigned.inputValue(), { timeout: 30_000 }).toBe('250.00')

      // Signing out forgets what was kept, with the session.
      await page.getByRole('button', { name: 'Sign out' }).click()
      const kept = await page.evaluate(() =>
        Object.keys(localStorage).filter((k) => k.startsWith('hearth.screen:')),
      )
      expect(kept).toEqual([])
    } finally {
      await context.close()
    }
  }
}
