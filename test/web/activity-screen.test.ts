/**
 * Who changed what, and undo, in Chromium (issue 43): a budget cell changed and taken back with
 * Ctrl+Z and with the toast's Undo, the Activity screen listing the change with before and after
 * and undoing it, and the cell's history panel; each checked against REST.
 */
import { describe, expect, it } from 'vitest'
import { chromiumPath } from '../src/browser.ts'
import { useTestServer } from '../src/index.ts'
import { signInToApp } from './app-sign-in.ts'
import { useWebBrowser } from './web-build.ts'

const server = useTestServer()
const browser = useWebBrowser()

describe.skipIf(!chromiumPath())('activity and undo in the app', () => {
  it('undoes a budget cell with Ctrl+Z and the toast, lists the change with before and after, and undoes it there', {
    timeout: 240_000,
  }, async () => {
    const owner = await server.newOwner()
    const h = `/households/${owner.householdId}`
    expect((await owner.api.patch(h, { baseCurrency: 'USD' })).status).toBe(200)
    expect((await owner.api.post(`${h}/starter-pack`, {})).status).toBe(201)
    const month = new Date().toISOString().slice(0, 7)
    const categories = (await owner.api.get(`${h}/categories`)).body.items as { id: string; name: string }[]
    const groceries = categories.find((c) => c.name === 'Groceries')!
    const cell = `${h}/budgets/${month}/categories/${groceries.id}`
    expect((await owner.api.patch(cell, { assignedCents: '5000' })).status).toBe(200)
    const assignedOnServer = async () => {
      const body = (await owner.api.get(`${h}/budgets/${month}`)).body as {
        groups: { categories: { id: string; assignedCents: string }[] }[]
      }
      return body.groups.flatMap((g) => g.categories).find((c) => c.id === groceries.id)?.assignedCents
    }

    const context = await browser().newContext({ viewport: { width: 1280, height: 900 } })
    try {
      const page = await context.newPage()
      await signInToApp(page, { url: server.url, token: owner.api.token, device: 'Undo' })
      const assigned = page.getByLabel('Assigned to Groceries', { exact: true })
      await expect.poll(() => assigned.inputValue(), { timeout: 120_000 }).toBe('50.00')

      // Changed, then Ctrl+Z: the cell is back, here and on the server.
      await assigned.fill('75')
      await assigned.press('Enter')
      await expect.poll(assignedOnServer, { timeout: 30_000 }).toBe('7500')
      // The toast is there even when the change was made while the replica opened (the cell showed
      // the server's answer), before the toast was on the page.
      const saved = page.getByRole('status').filter({ hasText: 'Saved:' })
      await saved.waitFor({ timeout: 30_000 })
      expect(await saved.count()).toBe(1)
      await page.keyboard.press('Control+z')
      await expect.poll(() => assigned.inputValue(), { timeout: 30_000 }).toBe('50.00')
      await expect.poll(assignedOnServer, { timeout: 30_000 }).toBe('5000')
      await page.getByRole('status').filter({ hasText: 'Undone:' }).waitFor({ timeout: 30_000 })

      // Changed again, then the toast's Undo.
      await assigned.fill('60')
      await assigned.press('Enter')
      await expect.poll(assignedOnServer, { timeout: 30_000 }).toBe('6000')
      await page
        .getByRole('status')
        .filter({ hasText: 'Saved:' })
        .getByRole('button', { name: 'Undo' })
        .click()
      await expect.poll(() => assigned.inputValue(), { timeout: 30_000 }).toBe('50.00')
      await expect.poll(assignedOnServer, { timeout: 30_000 }).toBe('5000')

      // A last change, kept: the cell's history panel shows it with who made it.
      await assigned.fill('80')
      await assigned.press('Enter')
      await expect.poll(assignedOnServer, { timeout: 30_000 }).toBe('8000')
      await page.getByRole('button', { name: 'Groceries', exact: true }).click()
      const history = page.getByRole('region', { name: /^History of Groceries/ })
      await history.getByRole('button', { name: 'History' }).click()
      await expect
        .poll(() => history.locator('.activity-entry').first().textContent(), { timeout: 30_000 })
        .toContain('assignedCents $50.00 → $80.00')
      expect(await history.locator('.activity-entry').first().textContent()).toContain("Owner's Undo")

      // The Activity screen lists it (and the undos before it) with before and after, and undoes it.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activity' }).click()
      await page.getByRole('heading', { name: 'Activity' }).waitFor()
      const latest = page.locator('.activity-entry').first()
      await expect
        .poll(() => latest.textContent(), { timeout: 30_000 })
        .toContain('assignedCents $50.00 → $80.00')
      expect(await latest.textContent()).toContain('budgets.assign')
      expect(await page.locator('.activity-entry[data-operation="activity.undoMutation"]').count()).toBe(2)
      await latest.getByRole('button', { name: /^Undo budget assignment/ }).click()
      await expect.poll(assignedOnServer, { timeout: 30_000 }).toBe('5000')
      await page
        .getByRole('status')
        .filter({ hasText: 'Undone: budget assignment.' })
        .waitFor({ timeout: 30_000 })
      await expect
        .poll(() => page.locator('.activity-entry').first().getAttribute('data-operation'), {
          timeout: 30_000,
        })
        .toBe('activity.undo')

      // The undos list Redo; a period long past empties the list, in words.
      expect(
        await page
          .locator('.activity-entry[data-operation="activity.undoMutation"]')
          .first()
          .getByRole('button')
          .textContent(),
      ).toBe('Redo')
      await page.getByLabel('From', { exact: true }).fill('2001-01-01')
      await page.getByLabel('To', { exact: true }).fill('2001-01-31')
      await page.getByText(/^No changes here yet/).waitFor({ timeout: 30_000 })
      // The budget cell follows the REST undo.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Budget' }).click()
      await expect.poll(() => assigned.inputValue(), { timeout: 30_000 }).toBe('50.00')
    } finally {
      await context.close()
    }
  })

  it('shows a transaction’s history in the register, and the Activity screen narrowed to its account', {
    timeout: 240_000,
  }, async () => {
    const owner = await server.newOwner()
    const h = `/households/${owner.householdId}`
    expect((await owner.api.patch(h, { baseCurrency: 'USD' })).status).toBe(200)
    const account = (await owner.api.post(`${h}/accounts`, { name: 'Checking', type: 'cash' })).body
    expect((await owner.api.post(`${h}/accounts`, { name: 'Savings', type: 'cash' })).status).toBe(201)
    const lunch = (
      await owner.api.post(`${h}/transactions`, {
        accountId: account.id,
        date: '2026-01-05',
        amountCents: -1200,
        memo: 'lunch',
      })
    ).body
    expect((await owner.api.patch(`${h}/transactions/${lunch.id}`, { memo: 'team lunch' })).status).toBe(200)

    const context = await browser().newContext({ viewport: { width: 1280, height: 900 } })
    try {
      const page = await context.newPage()
      await signInToApp(page, { url: server.url, token: owner.api.token, device: 'History' })
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'All transactions' })
        .click()
      const row = page.locator('tr.txn-row', { hasText: 'team lunch' })
      await row.waitFor({ timeout: 120_000 })
      await row.focus()
      await page.keyboard.press('Enter')
      const history = page.getByRole('region', { name: 'History of this transaction' })
      await history.getByRole('button', { name: 'History' }).click()
      const entries = history.locator('.activity-entry')
      await expect.poll(() => entries.count(), { timeout: 30_000 }).toBe(2)
      expect(await entries.first().textContent()).toContain('memo "lunch" → "team lunch"')
      expect(await entries.first().textContent()).toContain('with the key')
      expect(await entries.last().getAttribute('data-operation')).toBe('transactions.create')

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activity' }).click()
      await page.getByLabel('Account', { exact: true }).selectOption({ label: 'Checking' })
      await expect
        .poll(
          () =>
            page
              .locator('.activity-entry')
              .evaluateAll((els) => els.map((e) => e.getAttribute('data-operation'))),
          {
            timeout: 30_000,
          },
        )
        .toEqual(['transactions.update', 'transactions.create', 'accounts.create'])
      await page.getByLabel('Account', { exact: true }).selectOption({ label: 'Savings' })
      await expect
        .poll(
          () =>
            page
              .locator('.activity-entry')
              .evaluateAll((els) => els.map((e) => e.getAttribute('data-operation'))),
          {
            timeout: 30_000,
          },
        )
        .toEqual(['accounts.create'])
    } finally {
      await context.close()
    }
  })
})
