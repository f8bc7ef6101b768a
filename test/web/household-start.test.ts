/**
 * SLOW (a few minutes): a new household starts in the app, in Chromium, as a person would: the
 * first sign-in leads through setting it up (name, currency, time zone; accounts with balances;
 * the starter pack edited before it is created; a partner invited with the member preset), the
 * budget is funded, a repeat of the setup creates nothing twice, and the partner joins in a second
 * browser context and is told what their role allows. The test only reads REST, to compare.
 */
import { copyFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { chromiumPath } from '../src/browser.ts'
import { useTestServer } from '../src/index.ts'
import { joinWithInvitation, signInToApp } from './app-sign-in.ts'
import { useWebBrowser } from './web-build.ts'

const server = useTestServer()
const browser = useWebBrowser()
const SCREENSHOTS = join(import.meta.dirname, '../../test-artifacts/screenshots')

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(SCREENSHOTS, `start-${name}.png`), fullPage: true })

/** Cents as the app writes them in USD. */
function usd(cents: string): string {
  const v = BigInt(cents)
  const abs = v < 0n ? -v : v
  const whole = (abs / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return `${v < 0n ? '−' : ''}$${whole}.${(abs % 100n).toString().padStart(2, '0')}`
}

describe.skipIf(!chromiumPath())('a new household in the app', () => {
  it('is set up, funded and joined by a partner through the app only', async () => {
    mkdirSync(SCREENSHOTS, { recursive: true })
    const owner = await server.newOwner()
    const h = `/households/${owner.householdId}`
    const month = new Date().toISOString().slice(0, 7)
    const a = await browser().newContext({ viewport: { width: 1280, height: 900 } })
    const b = await browser().newContext({ viewport: { width: 1280, height: 900 } })
    try {
      const page = await a.newPage()
      await signInToApp(page, { url: server.url, token: owner.api.token, device: 'Alex laptop' })

      // The empty household's budget leads to the setup.
      await page.getByRole('heading', { name: 'Set up your household' }).waitFor({ timeout: 120_000 })
      const household = page.getByRole('form', { name: 'Your household' })
      await household.getByLabel('Household name').fill('The Harbors')
      await household.getByLabel('Currency').selectOption('USD')
      await household.getByLabel('Time zone').selectOption('Europe/Berlin')
      await shot(page, 'household')
      await household.getByRole('button', { name: 'Save and continue' }).click()

      const addAccount = page.getByRole('form', { name: 'Add an account' })
      await addAccount.getByLabel('Account name').fill('Checking')
      await addAccount.getByLabel('Balance today').fill('2500')
      await addAccount.getByLabel('As of').fill(`${month}-01`)
      await addAccount.getByRole('button', { name: 'Add account' }).click()
      await page.getByRole('list', { name: 'Your accounts' }).getByText('Checking').waitFor()
      await addAccount.getByLabel('Account name').fill('Brokerage')
      await addAccount.getByLabel('Kind').selectOption('tracking')
      await addAccount.getByLabel('Balance today').fill('10000')
      await addAccount.getByRole('button', { name: 'Add account' }).click()
      await page.getByRole('list', { name: 'Your accounts' }).getByText('Brokerage').waitFor()
      await shot(page, 'accounts')
      await page.getByRole('button', { name: 'Continue' }).click()

      // The starter pack, edited before it is created.
      await page.getByLabel('Rename Dining Out').fill('Eating out')
      await page.getByLabel('Create Vacation').uncheck()
      await page.getByLabel('Create the group True Expenses').uncheck()
      await shot(page, 'categories')
      await page.getByRole('button', { name: 'Create these categories' }).click()

      const invite = page.getByRole('form', { name: 'Invite someone' })
      await invite.getByLabel('Who it is for (for your own list)').fill('Sam')
      expect(await invite.getByRole('radio', { name: /Member/ }).isChecked()).toBe(true)
      await invite.getByRole('button', { name: 'Create invitation' }).click()
      const code = (await page.locator('[data-secret="Invitation code"]').textContent())!.trim()
      expect(code).toMatch(/^hinv_/)
      await shot(page, 'partner')
      await page.getByRole('button', { name: 'Finish' }).click()
      await page.getByRole('link', { name: 'Go to the budget' }).click()

      // What the app made, as REST sees it.
      await expect
        .poll(async () => (await owner.api.get(`${h}/accounts`)).body.items.length, { timeout: 30_000 })
        .toBe(2)
      const settled = (await owner.api.get(h)).body
      expect([settled.name, settled.baseCurrency, settled.timeZone]).toEqual([
        'The Harbors',
        'USD',
        'Europe/Berlin',
      ])
      const accounts = (await owner.api.get(`${h}/accounts`)).body.items as {
        name: string
        onBudget: boolean
        balanceCents: string
      }[]
      expect(accounts.map((x) => [x.name, x.onBudget, x.balanceCents]).sort()).toEqual([
        ['Brokerage', false, '1000000'],
        ['Checking', true, '250000'],
      ])
      const categories = async () =>
        ((await owner.api.get(`${h}/categories`)).body.items as { name: string }[]).map((c) => c.name)
      await expect.poll(async () => (await categories()).length, { timeout: 30_000 }).toBeGreaterThan(10)
      const created = await categories()
      expect(created).toContain('Eating out')
      expect(created).not.toContain('Dining Out')
      expect(created).not.toContain('Vacation')
      expect(created).not.toContain('Medical')
      const invitations = (await owner.api.get(`${h}/invitations`)).body.items
      expect(invitations.map((i: { note: string; status: string }) => [i.note, i.status])).toEqual([
        ['Sam', 'pending'],
      ])

      // Funding the budget: money in the bank given jobs.
      for (const [category, amount] of [
        ['Rent or Mortgage', '1200'],
        ['Groceries', '400'],
      ] as const) {
        const field = page.getByLabel(`Assigned to ${category}`, { exact: true })
        await field.fill(amount)
        await field.press('Enter')
      }
      await expect
        .poll(async () => (await owner.api.get(`${h}/budgets/${month}`)).body.assignedCents, {
          timeout: 30_000,
        })
        .toBe('160000')
      const budget = (await owner.api.get(`${h}/budgets/${month}`)).body
      expect(budget.readyToAssignCents).toBe('90000')
      await expect
        .poll(() => page.getByTestId('ready-to-assign').locator('.rta-amount').textContent(), {
          timeout: 15_000,
        })
        .toBe(usd(budget.readyToAssignCents))
      await shot(page, 'budget')
      // The README's picture of the app: a new household's first funded budget.
      if (process.env.HEARTH_UPDATE_SCREENSHOT) {
        copyFileSync(
          join(SCREENSHOTS, 'start-budget.png'),
          join(import.meta.dirname, '../../docs/screenshots/budget.png'),
        )
      }

      // Going through the setup again creates nothing twice.
      const count = created.length
      await page.goto(`${server.url}/app/welcome`)
      await page
        .getByRole('form', { name: 'Your household' })
        .getByRole('button', { name: 'Skip for now' })
        .click()
      await page.getByRole('button', { name: 'Skip for now' }).click()
      await page.getByText(`Your household has ${count} categories.`).waitFor({ timeout: 30_000 })
      expect((await categories()).length).toBe(count)
      expect((await owner.api.get(`${h}/accounts`)).body.items.length).toBe(2)

      // The partner joins in a second browser and is told what a member may do.
      const partner = await b.newPage()
      await joinWithInvitation(partner, { url: server.url, code, name: 'Sam', device: 'Sam phone' })
      const notice = partner.getByRole('status', { name: 'Your role' })
      await notice.waitFor({ timeout: 120_000 })
      expect(await notice.textContent()).toContain('You joined as a member.')
      await expect
        .poll(() => partner.getByTestId('ready-to-assign').locator('.rta-amount').textContent(), {
          timeout: 120_000,
        })
        .toBe(usd(budget.readyToAssignCents))
      await shot(partner, 'partner-joined')

      // The owner sees the partner on Members, as a member, and no invitation waiting.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Members' }).click()
      await page.locator('tr[data-member="Sam"]').waitFor({ timeout: 30_000 })
      expect(await page.getByRole('combobox', { name: 'Role of Sam' }).inputValue()).toBe('member')
      await page.getByText('No invitation is waiting.').waitFor()

      // A viewer's invitation, then withdrawn; Sam made an owner, then a member again.
      const inviteViewer = page.getByRole('form', { name: 'Invite someone' })
      await inviteViewer.getByRole('radio', { name: /Viewer/ }).check()
      await inviteViewer.getByLabel('Who it is for (for your own list)').fill('Grandma')
      await inviteViewer.getByRole('button', { name: 'Create invitation' }).click()
      const pending = page.getByRole('list', { name: 'Pending invitations' })
      await pending.getByText('Grandma').waitFor({ timeout: 30_000 })
      expect(await pending.textContent()).toContain('Viewer')
      const viewer = (await owner.api.get(`${h}/invitations`)).body.items[0]
      expect([viewer.note, viewer.role, viewer.scopes.includes('write:transactions')]).toEqual([
        'Grandma',
        'member',
        false,
      ])
      await shot(page, 'members')
      await pending.getByRole('button', { name: 'Revoke the invitation for Grandma' }).click()
      await page.getByText('No invitation is waiting.').waitFor({ timeout: 30_000 })
      expect((await owner.api.get(`${h}/invitations`)).body.items[0].status).toBe('revoked')
      const roleOf = async (name: string) =>
        ((await owner.api.get(`${h}/members`)).body.items as { name: string; role: string }[]).find(
          (m) => m.name === name,
        )?.role
      await page.getByRole('combobox', { name: 'Role of Sam' }).selectOption('owner')
      await expect.poll(() => roleOf('Sam'), { timeout: 30_000 }).toBe('owner')
      await page.getByRole('combobox', { name: 'Role of Sam' }).selectOption('member')
      await expect.poll(() => roleOf('Sam'), { timeout: 30_000 }).toBe('member')
    } catch (error) {
      // A failed step leaves a picture of both screens beside the others.
      for (const [context, name] of [
        [a, 'failed-owner'],
        [b, 'failed-partner'],
      ] as const) {
        const open = context.pages()[0]
        if (open) await shot(open, name).catch(() => {})
      }
      throw error
    } finally {
      await a.close()
      await b.close()
    }
  }, 600_000)
})
