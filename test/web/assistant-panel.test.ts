/**
 * The assistant panel in Chromium, through the real server and its offline provider: the consent
 * step, a question answered with REST's figure and what it read, a proposed budget move confirmed
 * once (the budget changes once) and another cancelled (nothing changes), the usage REST counts,
 * the conversation found in the history, searched, reopened and deleted, and the panel full-screen
 * at phone size.
 */
import { describe, expect, it } from 'vitest'
import { formatCents } from '../../packages/web/src/format.ts'
import { expectOk } from '../src/answers.ts'
import { chromiumPath } from '../src/browser.ts'
import { useTestServer } from '../src/index.ts'
import { signInToApp } from './app-sign-in.ts'
import { useWebBrowser } from './web-build.ts'

const server = useTestServer()
const capped = useTestServer({
  ai: {
    provider: { kind: 'offline' },
    caps: {
      userDailyRequests: 1,
      userDailyTokens: 0,
      householdMonthlyRequests: 0,
      householdMonthlyTokens: 0,
    },
  },
})
const browser = useWebBrowser()

describe.skipIf(!chromiumPath())('the assistant panel in Chromium', () => {
  it('answers with REST’s figure, confirms a move once and cancels another', {
    timeout: 300_000,
  }, async () => {
    const owner = await server.newOwner()
    const { api } = owner
    const h = `/households/${owner.householdId}`
    const now = new Date()
    const month = now.toISOString().slice(0, 7)
    const checking = await expectOk(api.post(`${h}/accounts`, { name: 'Everyday Checking', type: 'cash' }))
    const group = await expectOk(api.post(`${h}/category-groups`, { name: 'Living' }))
    const groceries = await expectOk(api.post(`${h}/categories`, { groupId: group.id, name: 'Groceries' }))
    const dining = await expectOk(api.post(`${h}/categories`, { groupId: group.id, name: 'Dining Out' }))
    for (const cents of [-4_520, -1_233]) {
      await expectOk(
        api.post(`${h}/transactions`, {
          accountId: checking.id,
          date: `${month}-01`,
          amountCents: cents,
          payeeName: 'FreshMart',
          categoryId: groceries.id,
        }),
      )
    }
    const cell = async (id: string) => expectOk(api.get(`${h}/budgets/${month}/categories/${id}`))
    const spent = formatCents(String(-BigInt((await cell(groceries.id)).activityCents)), 'USD')
    expect(spent).toBe('$57.53')

    const context = await browser().newContext({ viewport: { width: 1280, height: 1000 } })
    const page = await context.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (error) => pageErrors.push(error.message))
    try {
      await signInToApp(page, { url: server.url, token: api.token!, device: 'Assistant' })
      await page.getByRole('button', { name: 'Assistant' }).click({ timeout: 120_000 })
      const panel = page.getByRole('complementary', { name: 'Assistant' })
      // Consent first: nothing can be asked before it.
      await panel.getByRole('heading', { name: 'Before you ask' }).waitFor({ timeout: 60_000 })
      expect(await panel.getByLabel('Ask the assistant').count()).toBe(0)
      await panel.getByRole('button', { name: 'Allow the assistant' }).click()
      await panel.getByLabel('Ask the assistant').waitFor({ timeout: 30_000 })
      expect((await expectOk(api.get(`${h}/ai/consent`))).granted).toBe(true)

      // A question, typed and sent from the keyboard; the answer streams into the live log.
      const log = panel.getByRole('log')
      expect(await log.getAttribute('aria-live')).toBe('polite')
      await panel.getByLabel('Ask the assistant').fill('How much did we spend on groceries this month?')
      await panel.getByLabel('Ask the assistant').press('Enter')
      const answers = log.locator('li[data-role="assistant"]')
      await answers.first().and(page.locator('[data-status="complete"]')).waitFor({ timeout: 60_000 })
      expect(await answers.first().locator('.chat-text').textContent()).toContain(spent)
      expect(await answers.first().locator('li[data-tool="reports_spending"]').getAttribute('data-ok')).toBe(
        'true',
      )
      expect(
        await answers.first().getByRole('list', { name: 'What the assistant read' }).textContent(),
      ).toContain('Read the spending report')

      // A move proposed: its preview names both cells, before and after; confirmed once.
      const ask = async (question: string) => {
        await panel.getByLabel('Ask the assistant').fill(question)
        await panel.getByRole('button', { name: 'Send' }).click()
      }
      await ask('Move 50 from Dining Out to Groceries this month')
      const first = panel.locator('section[data-action]').first()
      await first.waitFor({ timeout: 60_000 })
      const groceriesCell = first.locator(`tr[data-category="${groceries.id}"] td`).first()
      expect(await groceriesCell.getAttribute('data-before')).toBe('0')
      expect(await groceriesCell.getAttribute('data-after')).toBe('5000')
      expect(await first.locator(`tr[data-category="${dining.id}"] th`).textContent()).toBe('Dining Out')
      expect((await cell(groceries.id)).assignedCents).toBe('0')
      await first.getByRole('button', { name: 'Confirm' }).click()
      await expect.poll(() => first.getAttribute('data-status'), { timeout: 30_000 }).toBe('executed')
      expect(await first.getByRole('button', { name: 'Confirm' }).count()).toBe(0)
      expect(await first.getByRole('status').textContent()).toContain('Done')
      expect((await cell(groceries.id)).assignedCents).toBe('5000')
      expect((await cell(dining.id)).assignedCents).toBe('-5000')

      // Another proposed and cancelled: nothing changes.
      await ask('Move 20 from Dining Out to Groceries this month')
      const second = panel.locator('section[data-action]').nth(1)
      await second.waitFor({ timeout: 60_000 })
      await second.getByRole('button', { name: 'Cancel' }).click()
      await expect.poll(() => second.getAttribute('data-status'), { timeout: 30_000 }).toBe('cancelled')
      expect((await cell(groceries.id)).assignedCents).toBe('5000')
      expect((await expectOk(api.get(`${h}/ai/actions`))).items).toEqual([])
      // The budget on the device shows the one move as well.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Budget' }).click()
      await expect
        .poll(() => page.getByLabel('Assigned to Groceries').inputValue(), { timeout: 60_000 })
        .toBe('50.00')

      // Usage as REST counts it: three questions today.
      const usage = await expectOk(api.get(`${h}/ai/usage`))
      expect(usage.user.requests).toBe(3)
      await expect
        .poll(() => panel.locator('[data-usage="user"]').getAttribute('data-requests'), { timeout: 30_000 })
        .toBe('3')

      // The history: found by a word of its title, not by another; reopened from the server; deleted.
      const [conversation] = (await expectOk(api.get(`${h}/ai/conversations`))).items
      await panel.getByText('History and search').click()
      const search = panel.getByLabel('Search conversations')
      await search.fill('zebras')
      await panel.getByText('No conversation has that in its title.').waitFor({ timeout: 30_000 })
      await search.fill('groceries')
      const listed = panel.locator(`li[data-conversation="${conversation.id}"]`)
      await listed.waitFor({ timeout: 30_000 })
      await panel.getByRole('button', { name: 'New conversation' }).click()
      expect(await log.locator('li').count()).toBe(0)
      await listed.getByRole('button', { name: conversation.title, exact: true }).click()
      await expect.poll(() => log.locator('li[data-role="user"]').count(), { timeout: 30_000 }).toBe(3)
      expect(
        await log.locator('li[data-role="assistant"]').first().locator('.chat-text').textContent(),
      ).toContain(spent)
      await listed.getByRole('button', { name: `Delete the conversation “${conversation.title}”` }).click()
      await listed.waitFor({ state: 'detached', timeout: 30_000 })
      expect((await expectOk(api.get(`${h}/ai/conversations`))).items).toEqual([])

      // Consent withdrawn from the panel: the consent step again, and the server's consent gone.
      await panel.getByRole('button', { name: 'Withdraw consent' }).click()
      await panel.getByRole('heading', { name: 'Before you ask' }).waitFor({ timeout: 30_000 })
      expect((await expectOk(api.get(`${h}/ai/consent`))).granted).toBe(false)

      // Escape closes it, and focus goes back to its button.
      await panel.getByRole('button', { name: 'Allow the assistant' }).press('Escape')
      await panel.waitFor({ state: 'detached' })
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('assistant-toggle')

      // At phone size it fills the screen.
      await page.setViewportSize({ width: 360, height: 740 })
      await page.getByRole('button', { name: 'Assistant' }).click()
      const box = await panel.boundingBox()
      expect(box).toMatchObject({ x: 0, y: 0, width: 360, height: 740 })
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('shows the usage against the caps, and says when a cap stops a question', {
    timeout: 300_000,
  }, async () => {
    const owner = await capped.newOwner()
    const h = `/households/${owner.householdId}`
    expect((await owner.api.post(`${h}/ai/consent`, {})).status).toBe(200)
    const context = await browser().newContext({ viewport: { width: 1280, height: 1000 } })
    const page = await context.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (error) => pageErrors.push(error.message))
    try {
      await signInToApp(page, { url: capped.url, token: owner.api.token!, device: 'Caps' })
      await page.getByRole('button', { name: 'Assistant' }).click({ timeout: 120_000 })
      const panel = page.getByRole('complementary', { name: 'Assistant' })
      const mine = panel.locator('[data-usage="user"]')
      await mine.waitFor({ timeout: 60_000 })
      expect(await mine.textContent()).toContain('0 of 1 questions')
      expect(await panel.locator('[data-usage="household"]').textContent()).toContain('(no limit)')
      await panel.getByLabel('Ask the assistant').fill('what can you do')
      await panel.getByLabel('Ask the assistant').press('Enter')
      await panel.locator('li[data-role="assistant"][data-status="complete"]').waitFor({ timeout: 60_000 })
      await expect.poll(() => mine.textContent(), { timeout: 30_000 }).toContain('1 of 1 questions')

      await panel.getByLabel('Ask the assistant').fill('what bills are coming up?')
      await panel.getByLabel('Ask the assistant').press('Enter')
      await panel.getByRole('alert').filter({ hasText: 'usage limit is reached; it opens again' }).waitFor({
        timeout: 30_000,
      })
      // The refused question is back in the box, and nothing was added to the thread.
      expect(await panel.getByLabel('Ask the assistant').inputValue()).toBe('what bills are coming up?')
      expect(await panel.locator('li[data-role="user"]').count()).toBe(1)
      expect((await owner.api.get(`${h}/ai/usage`)).body.user.requests).toBe(1)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
