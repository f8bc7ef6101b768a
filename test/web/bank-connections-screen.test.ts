import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath } from '../src/browser.ts'
import { dayAt, FakeSimplefin } from '../src/fake-simplefin.ts'
import { useTestServer } from '../src/index.ts'
import { signInToApp } from './app-sign-in.ts'
import { useWebBrowser } from './web-build.ts'

const H = '/households/current'
const server = useTestServer({
  banks: { intervalMs: 3_600_000, minGapMs: 0, initialDays: 90, retryDelaysMs: [], timeoutMs: 2_000 },
})
const browser = useWebBrowser()
const bridge = new FakeSimplefin()
beforeAll(() => bridge.start())
afterAll(() => bridge.close())

describe.skipIf(!chromiumPath())('the bank connections screen in Chromium', () => {
  it('connects from a setup token, links an account, syncs, and says when the bank refuses', {
    timeout: 240_000,
  }, async () => {
    const owner = await server.newOwner()
    const now = new Date()
    bridge.accounts.push({
      id: 'ACT-screen',
      name: 'Everyday Checking',
      currency: 'USD',
      balance: '100.00',
      'balance-date': dayAt(now, 0),
      org: { name: 'First Bank', domain: 'firstbank.example' },
      transactions: [
        { id: 'S1', posted: dayAt(now, -3), amount: '-12.34', description: 'CORNER SHOP' },
        { id: 'S2', posted: dayAt(now, -2), amount: '-5.00', description: 'BAKERY' },
      ],
    })
    const context = await browser().newContext({ viewport: { width: 1280, height: 1200 } })
    const page = await context.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (error) => pageErrors.push(error.message))
    try {
      await signInToApp(page, { url: server.url, token: owner.api.token!, device: 'Laptop' })
      await page.getByRole('link', { name: 'Bank connections' }).click({ timeout: 120_000 })
      await page.getByRole('heading', { name: 'Bank connections', level: 1 }).waitFor()
      await page.getByText('No bank is connected yet').waitFor({ timeout: 60_000 })

      await page.getByLabel('Setup token').fill(bridge.setupToken())
      await page.getByRole('button', { name: 'Connect a bank' }).click()
      await page.getByText('Connected First Bank').waitFor({ timeout: 30_000 })
      await page.getByLabel("Where Everyday Checking's rows go").selectOption('new')
      await page.getByText('Everyday Checking is linked.').waitFor({ timeout: 30_000 })
      await page.getByRole('button', { name: 'Sync now' }).click()
      await page.getByText('Synced: 2 new rows.').waitFor({ timeout: 30_000 })

      // The screen says what REST says.
      const list = (await owner.api.get(`${H}/bank-connections`)).body
      const link = list.items[0].links.find((l: any) => l.remoteId === 'ACT-screen')
      expect(list.items[0].lastSync.accounts[0]).toMatchObject({ created: 2, accountId: link.accountId })
      const rows = (await owner.api.get(`${H}/transactions?accountId=${link.accountId}&limit=10`)).body.items
      expect(rows.map((r: any) => r.amountCents).sort()).toEqual(['-1234', '-500'])

      // The bank refuses the access: the screen says so in words, with what to do.
      bridge.revoke()
      await page.getByRole('button', { name: 'Sync now' }).click()
      await page.getByRole('alert').filter({ hasText: 'stopped syncing' }).waitFor({ timeout: 30_000 })
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
