import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { formatCents } from '../../packages/web/src/format.ts'
import { expectOk } from '../src/answers.ts'
import { chromiumPath } from '../src/browser.ts'
import { useTestServer } from '../src/index.ts'
import { useWebBrowser } from './web-build.ts'

const ROOT = join(import.meta.dirname, '..', '..')
/** Where the browser tests keep their screenshots (CI keeps the folder as an artefact). */
const SCREENSHOTS = join(ROOT, 'test-artifacts', 'screenshots')
const H = '/households/current'

const server = useTestServer()
const browser = useWebBrowser()

/** The rows of a report's table: key (the month, or a category or payee id), then each cell. */
async function tableOf(page: Page, report: string) {
  return page.$$eval(`section[data-report="${report}"] tbody tr`, (rows) =>
    rows.map((tr) => ({
      key: tr.getAttribute('data-key'),
      head: tr.querySelector('th')?.textContent ?? '',
      cells: [...tr.querySelectorAll('td')].map((td) => ({
        text: td.textContent ?? '',
        cents: td.getAttribute('data-cents'),
      })),
    })),
  )
}

describe.skipIf(!chromiumPath())('the reports screen in Chromium', () => {
  it('shows what REST answers, for each report, and follows a change', { timeout: 240_000 }, async () => {
    const owner = await server.newOwner()
    const { api } = owner
    await expectOk(api.put(`${H}/exchange-rates/EUR/USD`, { rate: '1.08' }))
    const checking = await expectOk(
      api.post(`${H}/accounts`, {
        name: 'Checking',
        type: 'cash',
        openingBalanceCents: 420_000,
        openingBalanceDate: '2024-12-01',
      }),
    )
    const card = await expectOk(api.post(`${H}/accounts`, { name: 'Visa', type: 'credit' }))
    const euros = await expectOk(
      api.post(`${H}/accounts`, { name: 'Euro savings', type: 'cash', currency: 'EUR' }),
    )
    const group = await expectOk(api.post(`${H}/category-groups`, { name: 'Everyday' }))
    const categories: { id: string; name: string }[] = []
    for (const name of ['Groceries', 'Rent', 'Eating out', 'Transport', 'Fun']) {
      categories.push(await expectOk(api.post(`${H}/categories`, { groupId: group.id, name })))
    }
    const spend = [
      ['Grocer', 0, card.id, -18_000],
      ['Landlord', 1, checking.id, -140_000],
      ['Pizzeria', 2, card.id, -4_500],
      ['Metro', 3, checking.id, -6_000],
      ['Cinema', 4, card.id, -2_400],
      ['Boulangerie', 0, euros.id, -1_250],
    ] as const
    for (let m = 1; m <= 12; m++) {
      const month = `2025-${String(m).padStart(2, '0')}`
      await expectOk(
        api.post(`${H}/transactions`, {
          accountId: checking.id,
          date: `${month}-01`,
          amountCents: 320_000 + (m % 3) * 10_000,
          payeeName: 'Employer',
        }),
      )
      for (const [payeeName, c, accountId, cents] of spend) {
        await expectOk(
          api.post(`${H}/transactions`, {
            accountId,
            date: `${month}-${String(3 + c * 4).padStart(2, '0')}`,
            amountCents: cents - ((m * 731 * (c + 1)) % 5_000),
            payeeName,
            categoryId: categories[c]!.id,
          }),
        )
      }
      await expectOk(
        api.post(`${H}/transactions/transfer`, {
          fromAccountId: checking.id,
          toAccountId: card.id,
          amountCents: 30_000,
          date: `${month}-25`,
        }),
      )
    }

    const context = await browser().newContext({ viewport: { width: 1280, height: 1400 } })
    const page = await context.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (error) => pageErrors.push(error.message))
    try {
      await page.goto(`${server.url}/app/`)
      await page.getByRole('tab', { name: 'API key' }).click()
      await page.getByLabel('API key').fill(api.token!)
      await page.getByRole('button', { name: 'Sign in' }).click()
      // The app shows its links once the new replica is open, which takes long on a loaded machine.
      await page.getByRole('link', { name: 'Reports' }).click({ timeout: 120_000 })
      await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor()
      await page.getByLabel('From month', { exact: true }).fill('2025-01')
      await page.getByLabel('To month', { exact: true }).fill('2025-12')
      expect(await page.getByLabel('Range', { exact: true }).inputValue()).toBe('custom')

      const months = 'fromMonth=2025-01&toMonth=2025-12'
      const worth = await expectOk(api.get(`${H}/reports/net-worth?${months}`))
      const flow = await expectOk(api.get(`${H}/reports/cash-flow?${months}`))
      const age = await expectOk(api.get(`${H}/reports/age-of-money?${months}`))
      const byCategory = await expectOk(
        api.get(`${H}/reports/spending?fromDate=2025-01-01&toDate=2025-12-31&groupBy=category`),
      )
      const byPayee = await expectOk(
        api.get(`${H}/reports/spending?fromDate=2025-01-01&toDate=2025-12-31&groupBy=payee`),
      )
      const usd = (cents: string) => formatCents(cents, 'USD')

      // The replica catches up with the server; then every table holds REST's figures.
      await expect
        .poll(() => tableOf(page, 'net-worth'), { timeout: 60_000 })
        .toEqual(
          worth.months.map((m: Record<string, string>) => ({
            key: m.month,
            head: expect.any(String),
            cells: [m.assetsCents, m.liabilitiesCents, m.netWorthCents].map((c) => ({
              text: usd(c!),
              cents: c,
            })),
          })),
        )
      // Each card reads its own query, so each may arrive a moment after the first.
      await expect
        .poll(() => tableOf(page, 'cash-flow'), { timeout: 20_000 })
        .toEqual(
          flow.months.map((m: Record<string, string>) => ({
            key: m.month,
            head: expect.any(String),
            cells: [m.incomeCents, m.spendingCents, m.netCents].map((c) => ({ text: usd(c!), cents: c })),
          })),
        )
      await expect
        .poll(async () => (await tableOf(page, 'age-of-money')).map((r) => [r.key, r.cells[0]!.text]), {
          timeout: 20_000,
        })
        .toEqual(
          age.months.map((m: { month: string; days: number | null }) => [
            m.month,
            m.days === null ? 'not yet' : String(m.days),
          ]),
        )
      expect(age.months.at(-1).days).not.toBeNull()
      const spentRows = (report: { groups: { id: string | null; name: string; spentCents: string }[] }) =>
        report.groups
          .filter((g) => BigInt(g.spentCents) > 0n)
          .map((g) => [g.id ?? 'none', g.name, usd(g.spentCents)])
      const shown = async () =>
        (await tableOf(page, 'spending')).map((r) => [r.key, r.head, r.cells[0]!.text])
      await expect.poll(shown, { timeout: 20_000 }).toEqual(spentRows(byCategory))
      expect(spentRows(byCategory)).toHaveLength(5)
      // Headline figures say the same as REST.
      const summary = await page.locator('section[data-report="cash-flow"] .report-summary').textContent()
      expect(summary).toContain(usd(flow.totals.incomeCents))
      expect(summary).toContain(usd(flow.totals.spendingCents))
      // Each chart is an image with a name, and each table a caption.
      expect(await page.locator('canvas[role="img"][aria-label]').count()).toBe(4)
      expect(await page.locator('section[data-report] table caption').count()).toBe(4)

      // A person clicks the word; the radio inside the label takes it (and arrow keys move it).
      await page.locator('.report-by label', { hasText: 'Payee' }).click()
      expect(await page.getByRole('radio', { name: 'Payee' }).isChecked()).toBe(true)
      await expect.poll(shown, { timeout: 10_000 }).toEqual(spentRows(byPayee))
      await page.getByRole('radio', { name: 'Payee' }).focus()
      await page.keyboard.press('ArrowLeft')
      await expect.poll(shown, { timeout: 10_000 }).toEqual(spentRows(byCategory))

      mkdirSync(SCREENSHOTS, { recursive: true })
      await page.screenshot({ path: join(SCREENSHOTS, 'reports-charts.png'), fullPage: true })

      // A row added elsewhere reaches the replica by sync, and the charts and tables follow.
      await expectOk(
        api.post(`${H}/transactions`, {
          accountId: checking.id,
          date: '2025-12-20',
          amountCents: -77_700,
          payeeName: 'Garage',
          categoryId: categories[3]!.id,
        }),
      )
      const after = await expectOk(api.get(`${H}/reports/cash-flow?${months}`))
      expect(after.months.at(-1).spendingCents).not.toBe(flow.months.at(-1).spendingCents)
      await expect
        .poll(async () => (await tableOf(page, 'cash-flow')).at(-1)!.cells[1]!.cents, { timeout: 20_000 })
        .toBe(after.months.at(-1).spendingCents)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
