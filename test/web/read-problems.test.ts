/**
 * Never a silent screen: each screen that reads data, opened in Chromium with an invitation lacking
 * the scope it reads, says which access is missing in a household's words instead of an empty table,
 * and the sync badge of a machine that is online never says Offline while the replica opens.
 */
import { SCOPES, type Scope } from '@hearth/engine'
import { describe, expect, it } from 'vitest'
import { chromiumPath } from '../src/browser.ts'
import { useTestServer } from '../src/index.ts'
import { badgeStates, joinWithInvitation, recordBadgeStates } from './app-sign-in.ts'
import { useWebBrowser } from './web-build.ts'

const server = useTestServer()
const browser = useWebBrowser()

/** Each screen, the path it opens at, the scope its key lacks and the words that name it. */
const SCREENS = [
  { screen: 'Budget', path: '/budget', scope: 'read:budgets', words: 'the budget' },
  {
    screen: 'All transactions',
    path: '/transactions',
    scope: 'read:transactions',
    words: 'your transactions',
  },
  {
    screen: 'Accounts',
    path: '/accounts',
    scope: 'read:accounts',
    words: 'your accounts and their balances',
  },
  { screen: 'Rules', path: '/rules', scope: 'read:rules', words: 'your rules' },
  { screen: 'Categories', path: '/categories', scope: 'read:categories', words: 'your categories' },
  { screen: 'Payees', path: '/payees', scope: 'read:payees', words: 'your payees' },
  { screen: 'Reports', path: '/reports', scope: 'read:transactions', words: 'your transactions' },
] as const

describe.skipIf(!chromiumPath())('a screen whose read the key lacks', () => {
  it('says what is missing on every screen, and the badge never says Offline while online', async () => {
    const owner = await server.newOwner()
    const h = `/households/${owner.householdId}`
    expect((await owner.api.post(`${h}/starter-pack`, {})).status).toBe(201)
    const account = await owner.api.post(`${h}/accounts`, {
      name: 'Checking',
      type: 'cash',
      openingBalanceCents: '100000',
      openingBalanceDate: '2026-11-01',
    })
    expect(account.status).toBe(201)
    const row = { accountId: account.body.id, date: '2026-11-03', payeeName: 'Bakery', amountCents: '-450' }
    expect((await owner.api.post(`${h}/transactions`, row)).status).toBe(201)
    const categories = (await owner.api.get(`${h}/categories`)).body.items as { id: string; name: string }[]
    const rule = await owner.api.post(`${h}/rules`, {
      name: 'Bakery is groceries',
      predicate: { combinator: 'all', conditions: [{ field: 'payee_name', op: 'is', value: 'Bakery' }] },
      action: { setCategoryId: categories.find((c) => c.name === 'Groceries')!.id },
    })
    expect(rule.status).toBe(201)

    // One member per missing scope, who opens each screen that reads it.
    for (const scope of new Set(SCREENS.map((s) => s.scope))) {
      // A member invited with every scope but this one: their key (or session) is narrowed to it.
      const invitation = await owner.api.post(`${h}/invitations`, {
        role: 'member',
        scopes: SCOPES.filter((s: Scope) => s !== scope),
      })
      expect(invitation.status).toBe(201)
      const context = await browser().newContext({ viewport: { width: 1280, height: 860 } })
      try {
        const page = await context.newPage()
        await recordBadgeStates(page)
        await joinWithInvitation(page, {
          url: server.url,
          code: invitation.body.code,
          name: `No ${scope.replace(':', ' ')}`,
          device: `No ${scope}`,
        })
        for (const { screen, path, words } of SCREENS.filter((s) => s.scope === scope)) {
          await page
            .getByRole('navigation', { name: 'Main' })
            .getByRole('link', { name: screen, exact: true })
            .click()
          expect(new URL(page.url()).pathname).toBe(`/app${path}`)
          const problem = page.locator(`[data-problem="scope"][data-scope="${scope}"]`).first()
          await problem.waitFor({ timeout: 120_000 }).catch(async (error) => {
            // What the screen said instead, for the log.
            const said = await page.locator('main').textContent()
            const badge = await page.locator('.sync-badge').textContent()
            throw new Error(`${screen} showed: ${said?.slice(0, 400)} (badge: ${badge})`, { cause: error })
          })
          expect(await problem.textContent()).toContain(`You can’t see ${words} with this sign-in.`)
          expect(await problem.getAttribute('role')).toBe('alert')
          // Nothing on the screen pretends the data is there and empty.
          expect(
            await page
              .locator('main')
              .getByText(/No (transactions|accounts|rules) yet/)
              .count(),
          ).toBe(0)
        }
        expect(await badgeStates(page)).not.toContain('offline')
      } finally {
        await context.close()
      }
    }
  }, 600_000)
})
