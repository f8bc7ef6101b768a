/**
 * Managing categories in Chromium: rename, hide, reorder with the keyboard and by dragging, a goal
 * set in place, and a category deleted with the money it holds moved to another in one mutation; each
 * checked against REST.
 */
import { describe, expect, it } from 'vitest'
import { chromiumPath } from '../src/browser.ts'
import { useTestServer } from '../src/index.ts'
import { signInToApp } from './app-sign-in.ts'
import { useWebBrowser } from './web-build.ts'

const server = useTestServer()
const browser = useWebBrowser()

describe.skipIf(!chromiumPath())('the categories screen', () => {
  it('renames, hides, reorders, sets a goal and deletes with the money moved', async () => {
    const owner = await server.newOwner()
    const h = `/households/${owner.householdId}`
    expect((await owner.api.patch(h, { baseCurrency: 'USD' })).status).toBe(200)
    expect((await owner.api.post(`${h}/starter-pack`, {})).status).toBe(201)
    const month = new Date().toISOString().slice(0, 7)
    const byName = async () =>
      new Map(
        ((await owner.api.get(`${h}/categories`)).body.items as { id: string; name: string }[]).map((c) => [
          c.name,
          c,
        ]),
      )
    const dining = (await byName()).get('Dining Out')! as { id: string }
    expect(
      (await owner.api.patch(`${h}/budgets/${month}/categories/${dining.id}`, { assignedCents: '5000' }))
        .status,
    ).toBe(200)

    const context = await browser().newContext({ viewport: { width: 1280, height: 900 } })
    try {
      const page = await context.newPage()
      await signInToApp(page, { url: server.url, token: owner.api.token, device: 'Categories' })
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Categories' }).click()
      const bills = page.getByRole('region', { name: 'Group Bills' })
      await bills.waitFor({ timeout: 120_000 })

      await page.getByLabel('Name of Groceries', { exact: true }).fill('Food')
      await page.getByLabel('Name of Groceries', { exact: true }).press('Enter')
      await expect.poll(async () => (await byName()).has('Food'), { timeout: 30_000 }).toBe(true)

      const list = () =>
        bills
          .getByRole('list')
          .locator('li input[aria-label^="Name of"]')
          .evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value))
      const before = await list()
      expect(before.slice(0, 2)).toEqual(['Rent or Mortgage', 'Utilities'])
      await bills.getByRole('button', { name: /^Move Utilities/ }).press('ArrowUp')
      await expect
        .poll(list, { timeout: 30_000 })
        .toEqual(['Utilities', 'Rent or Mortgage', ...before.slice(2)])
      // Dragging the last to the top.
      const items = bills.getByRole('list').locator('li')
      await items.last().dragTo(items.first())
      await expect.poll(async () => (await list())[0], { timeout: 30_000 }).toBe(before.at(-1))

      await page.getByLabel('Goal of Insurance', { exact: true }).selectOption('monthly')
      await page.getByLabel('Goal amount of Insurance').fill('80')
      await page.getByRole('button', { name: 'Save goal of Insurance' }).click()
      const fitness = page.locator('li', { has: page.getByLabel('Name of Fitness', { exact: true }) })
      // The box shows the replica's row, so it turns once the change is made there: on a busy
      // machine after Playwright's check() has looked (it then says the click changed nothing).
      const hidden = fitness.getByRole('checkbox', { name: 'Hidden' })
      await hidden.click()
      await expect.poll(() => hidden.isChecked(), { timeout: 30_000 }).toBe(true)

      await page.getByRole('button', { name: 'Delete Dining Out' }).click()
      const deleting = page.getByRole('group', { name: 'Delete Dining Out' })
      expect(await deleting.textContent()).toContain('It holds $50.00 this month.')
      await deleting.getByLabel('Move what Dining Out holds to').selectOption({ label: 'Move it to Food' })
      await deleting.getByRole('button', { name: 'Delete', exact: true }).click()
      await expect.poll(async () => (await byName()).has('Dining Out'), { timeout: 30_000 }).toBe(false)

      const now = await byName()
      const food = now.get('Food') as unknown as { id: string }
      expect((now.get('Insurance') as unknown as { goal: unknown }).goal).toEqual({
        type: 'monthly',
        amountCents: '8000',
      })
      expect((now.get('Fitness') as unknown as { hidden: boolean }).hidden).toBe(true)
      const cell = (await owner.api.get(`${h}/budgets/${month}/categories/${food.id}`)).body
      expect(cell.assignedCents).toBe('5000')
      // One mutation moved the money and deleted the category, in one transaction.
      const activity = (await owner.api.get(`${h}/activity`)).body.items as {
        operation: string
        changes: { table: string; id: string; action: string }[]
      }[]
      const deletion = activity.filter((e) => e.operation === 'budgets.deleteCategory')
      expect(deletion).toHaveLength(1)
      expect(deletion[0]!.changes).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ table: 'categories', id: dining.id, action: 'deleted' }),
          expect.objectContaining({ table: 'budget_cells', id: `${month}:${food.id}` }),
        ]),
      )
      expect(
        activity.filter((e) => e.operation === 'categories.delete' || e.operation === 'budgets.move'),
      ).toEqual([])
      const positions = (
        (await owner.api.get(`${h}/category-groups`)).body.items as {
          name: string
          categories: { name: string }[]
        }[]
      )
        .find((g) => g.name === 'Bills')!
        .categories.map((c) => c.name)
      expect(positions).toEqual(await list())
    } finally {
      await context.close()
    }
  }, 300_000)
})
