/**
 * The budget reads right, in Chromium: a salary typed as an inflow in the register is offered the
 * household's income categories first and counts in "Income this month" (as REST's budget month
 * says); assigned money is not shown negative; rows write dates as the device's locale does; the
 * search box's placeholder says what its label says.
 */
import { describe, expect, it } from 'vitest'
import { chromiumPath } from '../src/browser.ts'
import { useTestServer } from '../src/index.ts'
import { signInToApp } from './app-sign-in.ts'
import { useWebBrowser } from './web-build.ts'

const server = useTestServer()
const browser = useWebBrowser()

describe.skipIf(!chromiumPath())('the budget reads right', () => {
  it('counts an inflow typed in the register as income, with one sign rule and one date format', async () => {
    const owner = await server.newOwner()
    const h = `/households/${owner.householdId}`
    expect((await owner.api.patch(h, { baseCurrency: 'USD' })).status).toBe(200)
    expect((await owner.api.post(`${h}/starter-pack`, {})).status).toBe(201)
    const month = new Date().toISOString().slice(0, 7)
    const account = await owner.api.post(`${h}/accounts`, { name: 'Checking', type: 'cash' })
    expect(account.status).toBe(201)

    // A German browser: its date fields and the rows both write 27.11.2026.
    const context = await browser().newContext({ locale: 'de-DE', viewport: { width: 1280, height: 860 } })
    try {
      const page = await context.newPage()
      await signInToApp(page, { url: server.url, token: owner.api.token, device: 'Reads right' })
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'All transactions' })
        .click()
      const search = page.getByLabel('Search payee, memo and category')
      expect(await search.getAttribute('placeholder')).toBe('Search payee, memo and category')

      const add = page.getByRole('form', { name: 'Add a transaction' })
      await add.getByLabel('Date').fill(`${month}-03`)
      await add.getByLabel('Payee').fill('Employer')
      await add.getByLabel('Inflow').fill('5500')
      const category = add.getByLabel('Category', { exact: true })
      // Money in: the income group is listed first and its first category offered.
      expect(await category.locator('optgroup').first().getAttribute('label')).toBe('Income')
      expect(await category.locator('option:checked').textContent()).toBe('Salary')
      await add.getByLabel('Inflow').press('Enter')
      const row = page.locator('tr.txn-row', { hasText: 'Employer' })
      await row.waitFor({ timeout: 30_000 })
      expect(await row.locator('td.category').textContent()).toBe('Salary')
      const [y, m] = month.split('-')
      expect(await row.locator('.date').textContent()).toBe(`03.${m}.${y}`)

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Budget' }).click()
      await page.getByLabel('Assigned to Groceries', { exact: true }).fill('400')
      await page.getByLabel('Assigned to Groceries', { exact: true }).press('Enter')
      const summary = page.getByRole('region', { name: 'This month' })
      const line = (label: string) => summary.locator('div', { hasText: label }).locator('dd')
      await expect.poll(() => line('Assigned this month').textContent(), { timeout: 30_000 }).toBe('$400.00')
      expect(await line('Income this month').textContent()).toBe('$5,500.00')
      expect(await line('Uncategorized money').textContent()).toBe('$0.00')
      expect(await summary.locator('.summary-total dd').textContent()).toBe('$5,100.00')

      // The same figures as REST's budget month, once the edits reached the server.
      await expect
        .poll(async () => (await owner.api.get(`${h}/budgets/${month}`)).body.assignedCents, {
          timeout: 30_000,
        })
        .toBe('40000')
      const rest = (await owner.api.get(`${h}/budgets/${month}`)).body
      expect([rest.incomeCents, rest.uncategorizedCents, rest.readyToAssignCents]).toEqual([
        '550000',
        '0',
        '510000',
      ])
    } finally {
      await context.close()
    }
  }, 300_000)
})
