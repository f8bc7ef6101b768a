/**
 * Managing accounts in Chromium: add one, rename it, reconcile it against a statement (the gap
 * booked as an adjustment), see its balance history, make a cash account a credit one, close and
 * reopen; each checked against REST.
 */
import { describe, expect, it } from 'vitest'
import { chromiumPath } from '../src/browser.ts'
import { useTestServer } from '../src/index.ts'
import { signInToApp } from './app-sign-in.ts'
import { useWebBrowser } from './web-build.ts'

const server = useTestServer()
const browser = useWebBrowser()

describe.skipIf(!chromiumPath())('the accounts screen', () => {
  it('adds, renames, reconciles, converts, closes and reopens an account', async () => {
    const owner = await server.newOwner()
    const h = `/households/${owner.householdId}`
    expect((await owner.api.patch(h, { baseCurrency: 'USD' })).status).toBe(200)
    expect((await owner.api.post(`${h}/starter-pack`, {})).status).toBe(201)
    const today = new Date().toISOString().slice(0, 10)
    const account = async (name: string) =>
      ((await owner.api.get(`${h}/accounts`)).body.items as Record<string, any>[]).find(
        (a) => a.name === name,
      )

    const context = await browser().newContext({ viewport: { width: 1280, height: 900 } })
    try {
      const page = await context.newPage()
      await signInToApp(page, { url: server.url, token: owner.api.token, device: 'Accounts' })
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Accounts' }).click()
      const add = page.getByRole('form', { name: 'Add an account' })
      await add.waitFor({ timeout: 120_000 }).catch(async (error) => {
        const said = await page.locator('body').textContent()
        throw new Error(`The page showed: ${said?.slice(0, 500)}`, { cause: error })
      })
      await add.getByLabel('Account name').fill('Joint')
      await add.getByLabel('Balance today').fill('1000')
      await add.getByLabel('As of').fill(today)
      await add.getByRole('button', { name: 'Add account' }).click()
      await expect
        .poll(async () => (await account('Joint'))?.balanceCents, { timeout: 30_000 })
        .toBe('100000')

      await page.getByRole('button', { name: 'Manage Joint' }).click()
      const panel = page.getByRole('region', { name: 'Manage Joint' })
      await panel.getByLabel('Name').fill('Joint checking')
      await panel.getByRole('button', { name: 'Rename' }).click()
      await expect.poll(async () => Boolean(await account('Joint checking')), { timeout: 30_000 }).toBe(true)

      // The bank says 990.00: a 10.00 gap is booked as an adjustment and the rows lock.
      const reopened = page.getByRole('region', { name: 'Manage Joint checking' })
      await reopened.getByLabel('Statement balance').fill('990')
      await reopened.getByLabel('Statement date').fill(today)
      await reopened.getByRole('button', { name: 'Reconcile' }).click()
      await reopened
        .getByText(/Reconciled 2 rows, with an adjustment of −\$10\.00/)
        .waitFor({ timeout: 30_000 })
      await expect
        .poll(async () => (await account('Joint checking'))?.balanceCents, { timeout: 30_000 })
        .toBe('99000')

      await reopened.getByText('Balance over the last 30 days').click()
      const history = reopened.getByRole('table', { name: 'Balance history of Joint checking' })
      await expect
        .poll(() => history.locator('tbody tr').last().locator('td').nth(1).textContent())
        .toBe('$990.00')

      expect(await reopened.textContent()).toContain('On budget.')
      await reopened.getByRole('button', { name: 'Make it a credit account' }).click()
      await expect
        .poll(async () => (await account('Joint checking'))?.type, { timeout: 30_000 })
        .toBe('credit')

      page.once('dialog', (dialog) => void dialog.accept())
      await reopened.getByRole('button', { name: 'Close the account' }).click()
      await expect
        .poll(async () => (await account('Joint checking'))?.status, { timeout: 30_000 })
        .toBe('closed')
      expect((await account('Joint checking'))?.balanceCents).toBe('0')
      await reopened.getByRole('button', { name: 'Reopen the account' }).click()
      await expect
        .poll(async () => (await account('Joint checking'))?.status, { timeout: 30_000 })
        .toBe('open')
    } finally {
      await context.close()
    }
  }, 300_000)
})
