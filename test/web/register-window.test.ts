/**
 * The register windowed (issue 41): with 1,500 rows read, only those near the viewport are rows of
 * the page, a spacer above and below keeping the page's scroll height; scrolling to the end shows
 * the oldest row as REST lists it; the table tells assistive technology how many rows there are
 * and where each is; the arrow keys move past the rows rendered, and an open editor stays in the
 * page however far the register scrolls.
 */
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { formatCents } from '../../packages/web/src/format.ts'
import { expectOk } from '../src/answers.ts'
import { chromiumPath } from '../src/browser.ts'
import { type TestMember, useTestServer } from '../src/index.ts'
import { signInToApp } from './app-sign-in.ts'
import { go, settled } from './screen-checks.ts'
import { useWebBrowser } from './web-build.ts'

const server = useTestServer()
const browser = useWebBrowser()

const ROWS = 1_500

interface Txn {
  id: string
  date: string
  amountCents: string
}

/** An account of 1,500 rows, one a day back from today (every 7th with a memo that wraps). */
async function seed(owner: TestMember) {
  const { api } = owner
  const h = `/households/${owner.householdId}`
  const day = (back: number) => new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10)
  const account = await expectOk(
    api.post(`${h}/accounts`, {
      name: 'Checking',
      type: 'cash',
      openingBalanceCents: '5000000',
      openingBalanceDate: day(ROWS + 1),
    }),
  )
  const rows = Array.from({ length: ROWS }, (_, i) => ({
    accountId: account.id,
    date: day(i),
    payeeName: `Shop ${i % 40}`,
    amountCents: String(-(100 + i)),
    ...(i % 7 === 0 && {
      memo: `row ${i}: ${'a memo long enough to wrap onto more lines of its cell '.repeat(3)}`,
    }),
  }))
  for (let i = 0; i < rows.length; i += 500)
    await expectOk(api.post(`${h}/transactions/bulk`, { transactions: rows.slice(i, i + 500) }))
  const listed: Txn[] = []
  let cursor: string | null = null
  do {
    const page: { items: Txn[]; nextCursor: string | null } = await expectOk(
      api.get(`${h}/transactions?accountId=${account.id}&limit=500${cursor ? `&cursor=${cursor}` : ''}`),
    )
    listed.push(...page.items)
    cursor = page.nextCursor
  } while (cursor)
  return { accountId: account.id as string, listed }
}

/** The register's rows in the page: id, aria-rowindex, and whether each is in the viewport. */
function rendered(page: Page) {
  return page.locator('tr.txn-row').evaluateAll((rows) =>
    rows.map((r) => {
      const box = r.getBoundingClientRect()
      return {
        id: r.getAttribute('data-id'),
        index: Number(r.getAttribute('aria-rowindex')),
        seen: box.bottom > 0 && box.top < innerHeight,
      }
    }),
  )
}

/** Fails unless each rendered row is the REST row its aria-rowindex says (the header is row 1). */
async function expectRowsInPlace(page: Page, listed: Txn[]) {
  const rows = await rendered(page)
  expect(rows.length).toBeGreaterThan(0)
  expect(rows.map((r) => r.id)).toEqual(rows.map((r) => listed[r.index - 2]?.id))
}

describe.skipIf(!chromiumPath())('the register, windowed', () => {
  it('keeps the rows near the viewport in the page, whatever the number read', {
    timeout: 600_000,
  }, async () => {
    const owner = await server.newOwner()
    const { accountId, listed } = await seed(owner)
    expect(listed.length).toBe(ROWS + 1) // and the opening balance
    const context = await browser().newContext({ viewport: { width: 1280, height: 860 } })
    try {
      const page = await context.newPage()
      await signInToApp(page, { url: server.url, token: owner.api.token!, device: 'Window' })
      await page.locator('main h1').first().waitFor({ timeout: 120_000 })
      await go(page, `/accounts/${accountId}`)
      await settled(page)
      // And as a reload opens it, from the replica.
      await page.reload()
      await page
        .locator('form[aria-label="Add a transaction"] fieldset:not([disabled])')
        .waitFor({ timeout: 120_000 })
      await settled(page)
      const table = page.locator('table.register-table')
      await page.locator('tr.txn-row').first().waitFor({ timeout: 60_000 })

      // The first page: fewer rows in the page than read; the count unknown while older ones remain.
      expect(await page.locator('tr.txn-row').count()).toBeLessThan(100)
      expect(await table.getAttribute('aria-rowcount')).toBe('-1')
      expect(await page.locator('thead tr').getAttribute('aria-rowindex')).toBe('1')
      await expectRowsInPlace(page, listed)

      // Every page read, by the button at the end (which scrolls the end into view each time).
      const more = page.getByRole('button', { name: 'Show older transactions' })
      while ((await more.count()) > 0) {
        const before = Math.max(...(await rendered(page)).map((r) => r.index))
        await more.click()
        // Until the page asked for is read: the button is back (more pages) or the count is known
        // (none). The rows rendered also move on as the click scrolls the end into view, before
        // the page arrives, and while it loads the button is gone: that alone ended the loop early.
        await expect
          .poll(
            async () =>
              Math.max(...(await rendered(page)).map((r) => r.index)) > before &&
              ((await more.count()) > 0 || (await table.getAttribute('aria-rowcount')) !== '-1'),
            { timeout: 60_000 },
          )
          .toBe(true)
      }
      await expect.poll(() => table.getAttribute('aria-rowcount'), { timeout: 60_000 }).toBe(String(ROWS + 2))
      expect(await page.locator('tr.txn-row').count()).toBeLessThan(150)

      // At the very end, the oldest row (the opening balance) in sight, with REST's figures.
      await page.evaluate(() => scrollTo(0, document.documentElement.scrollHeight))
      const oldest = listed.at(-1)!
      const last = page.locator(`tr.txn-row[data-id="${oldest.id}"]`)
      await expect.poll(() => last.count(), { timeout: 15_000 }).toBe(1)
      expect(await last.getAttribute('aria-rowindex')).toBe(String(ROWS + 2))
      expect(await last.locator('td.amount').textContent()).toBe(formatCents(oldest.amountCents, 'USD'))
      expect(await last.locator('time').getAttribute('datetime')).toBe(oldest.date)
      await expect
        .poll(() =>
          last.evaluate(
            (r) => r.getBoundingClientRect().bottom <= innerHeight && r.getBoundingClientRect().top >= 0,
          ),
        )
        .toBe(true)
      await expectRowsInPlace(page, listed)
      expect(await page.locator('tr.txn-row').count()).toBeLessThan(150)

      // Halfway down, the rows there, still each where REST lists it.
      await page.evaluate(() => scrollTo(0, document.documentElement.scrollHeight / 2))
      await expect
        .poll(async () => (await rendered(page)).some((r) => r.seen && r.index > 600 && r.index < 900), {
          timeout: 15_000,
        })
        .toBe(true)
      await expectRowsInPlace(page, listed)

      // Arrow keys from the top, past the rows rendered at first: the row reached has the focus,
      // in sight, each step one row of REST's order.
      await page.evaluate(() => scrollTo(0, 0))
      await expect.poll(async () => (await rendered(page)).some((r) => r.index === 2)).toBe(true)
      const firstRendered = await rendered(page)
      const beyond = Math.max(...firstRendered.map((r) => r.index)) + 60 // aria-rowindex past the window
      await page.locator('tr.txn-row').first().focus()
      for (let i = 2; i < beyond; i++) await page.keyboard.press('ArrowDown')
      const focused = () =>
        page.evaluate(() => {
          const e = document.activeElement as HTMLElement
          const box = e.getBoundingClientRect()
          return {
            id: e.getAttribute('data-id'),
            index: Number(e.getAttribute('aria-rowindex')),
            tabIndex: e.tabIndex,
            seen: box.top >= -1 && box.bottom <= innerHeight + 1, // (scrolled to whole pixels)
          }
        })
      await expect
        .poll(focused)
        .toEqual({ id: listed[beyond - 2]!.id, index: beyond, tabIndex: 0, seen: true })
      // The window has moved down with the focus: the first rows are out of the page.
      expect((await rendered(page)).some((r) => r.index === 2)).toBe(false)
      await page.keyboard.press('ArrowUp')
      await expect.poll(focused).toMatchObject({ id: listed[beyond - 3]!.id, seen: true })

      // Enter opens the row; scrolled far away and back, its editor is still open, its draft kept.
      await page.keyboard.press('Enter')
      const editor = page.locator('tr.editor-row')
      await editor.waitFor()
      expect(await editor.getAttribute('aria-rowindex')).toBe(String(beyond - 1))
      await editor.locator('input[name="memo"]').fill('kept while away')
      await page.evaluate(() => scrollTo(0, document.documentElement.scrollHeight))
      await expect.poll(() => last.count(), { timeout: 15_000 }).toBe(1)
      expect(await editor.count()).toBe(1)
      expect(await page.locator('tr.txn-row').count()).toBeLessThan(150)
      await editor.locator('input[name="memo"]').focus()
      expect(await editor.locator('input[name="memo"]').inputValue()).toBe('kept while away')
      await page.keyboard.press('Escape')
      await expect.poll(() => editor.count()).toBe(0)
      await expect.poll(async () => (await focused()).id).toBe(listed[beyond - 3]!.id)

      // A payee renamed elsewhere: its rows, unchanged themselves (a row is rendered again only
      // when its content or a name it shows changes), show the new name; the others keep theirs.
      await page.evaluate(() => scrollTo(0, 0))
      await expect.poll(async () => (await rendered(page)).some((r) => r.index === 2)).toBe(true)
      const h = `/households/${owner.householdId}`
      const payees: { items: { id: string; name: string }[] } = await expectOk(owner.api.get(`${h}/payees`))
      const shop = payees.items.find((p) => p.name === 'Shop 0')!
      await expectOk(owner.api.patch(`${h}/payees/${shop.id}`, { name: 'Corner Bakery' }))
      const payeeCells = () => page.locator('tr.txn-row td.payee').allTextContents()
      await expect
        .poll(async () => (await payeeCells()).includes('Corner Bakery'), { timeout: 30_000 })
        .toBe(true)
      const shown = await payeeCells()
      expect(shown).not.toContain('Shop 0')
      expect(shown).toContain('Shop 1')
    } finally {
      await context.close()
    }
  })
})
