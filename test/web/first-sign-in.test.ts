/**
 * A first sign-in on a household with more rows than a moment's sync (issue 44, speed): the budget
 * shows the month as the server answers it while the device's first snapshot loads, and takes an
 * assignment then, made once the rows are in; the sync badge counts the rows as they load, and
 * once the replica has its rows the budget reads it, with the same figures. The server sends 10 rows a page here, so the snapshot takes many pages.
 */
import { operations, runMutation, SCOPES } from '@hearth/engine'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { chromiumPath } from '../src/browser.ts'
import { useTestServer } from '../src/index.ts'
import { signInToApp } from './app-sign-in.ts'
import { useWebBrowser } from './web-build.ts'

const server = useTestServer({ syncPageRows: 10 })
const browser = useWebBrowser()

describe.skipIf(!chromiumPath())('a first sign-in', () => {
  it('shows the budget from the server and counts the rows while the first snapshot loads', async () => {
    const owner = await server.newOwner()
    const h = `/households/${owner.householdId}`
    expect((await owner.api.patch(h, { baseCurrency: 'USD' })).status).toBe(200)
    const group = (await owner.api.post(`${h}/category-groups`, { name: 'Everyday' })).body
    const food = (await owner.api.post(`${h}/categories`, { groupId: group.id, name: 'Food' })).body
    const checking = (
      await owner.api.post(`${h}/accounts`, {
        name: 'Checking',
        type: 'cash',
        openingBalanceCents: 500_000,
        openingBalanceDate: new Date().toISOString().slice(0, 10),
      })
    ).body
    const month = new Date().toISOString().slice(0, 7)
    expect(
      (await owner.api.patch(`${h}/budgets/${month}/categories/${food.id}`, { assignedCents: 120_000 }))
        .status,
    ).toBe(200)
    const ctx = {
      userId: owner.userId,
      scopes: [...SCOPES],
      householdId: owner.householdId,
      role: 'owner' as const,
      now: new Date(),
    }
    // 1,500 older rows: 150 pages of 10.
    for (let n = 0; n < 1500; n += 500) {
      const transactions = Array.from({ length: 500 }, (_, k) => ({
        id: ulid(),
        accountId: checking.id,
        date: '2024-03-01',
        amountCents: n + k + 1,
      }))
      await runMutation(server.store.db, operations.transactions.bulkCreate, { transactions }, ctx)
    }
    const rest = (await owner.api.get(`${h}/budgets/${month}`)).body
    const shown = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(
      Number(rest.readyToAssignCents) / 100,
    )

    const context = await browser().newContext({ viewport: { width: 1280, height: 900 } })
    try {
      const page = await context.newPage()
      // What the page showed while its replica had no rows: the budget's Ready to Assign with the
      // line saying it comes from the server, and the badge's words.
      await page.addInitScript(() => {
        const seen = { fromServer: [] as string[], badge: [] as string[], editable: [] as boolean[] }
        ;(window as unknown as { seen: typeof seen }).seen = seen
        new MutationObserver(() => {
          const line = document.querySelector('[data-testid="budget-from-server"]')
          const rta = document.querySelector('[data-testid="ready-to-assign"] .rta-amount')?.textContent
          if (line && rta && seen.fromServer.at(-1) !== rta) seen.fromServer.push(rta)
          // The budget can be changed at once: a change waits for the replica's rows.
          const field = document.querySelector<HTMLInputElement>('input[name="assigned"]')
          if (line && field && seen.editable.at(-1) !== field.matches(':enabled'))
            seen.editable.push(field.matches(':enabled'))
          const label = document.querySelector('.sync-badge .sync-label')?.textContent
          if (label && seen.badge.at(-1) !== label) seen.badge.push(label)
        }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true })
      })
      await signInToApp(page, { url: server.url, token: owner.api.token, device: 'First sign-in' })
      // While the month comes from the server, an assignment is taken, and made once the rows are in.
      const fromServerLine = page.getByTestId('budget-from-server')
      await fromServerLine.waitFor({ timeout: 120_000 })
      const assigned = page.getByLabel('Assigned to Food', { exact: true })
      await assigned.fill('1300')
      await assigned.press('Enter')
      expect(
        await fromServerLine.count(),
        'the assignment was made while the month came from the server',
      ).toBe(1)
      await page.locator('.sync-badge[data-state="online"]').waitFor({ timeout: 120_000 })
      const cell = `${h}/budgets/${month}/categories/${food.id}`
      await expect
        .poll(async () => (await owner.api.get(cell)).body.assignedCents, { timeout: 60_000 })
        .toBe('130000')
      const after = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(
        Number((await owner.api.get(`${h}/budgets/${month}`)).body.readyToAssignCents) / 100,
      )
      const rta = page.getByTestId('ready-to-assign').locator('.rta-amount')
      await expect.poll(() => rta.textContent(), { timeout: 30_000 }).toBe(after)
      expect(await assigned.inputValue()).toBe('1300.00')
      expect(await fromServerLine.count()).toBe(0)

      const seen = await page.evaluate(
        () =>
          (window as unknown as { seen: { fromServer: string[]; badge: string[]; editable: boolean[] } })
            .seen,
      )
      expect(seen.editable).toEqual([true])
      // The server's month was shown before the replica had its rows, with the same figure.
      expect(seen.fromServer).toEqual([shown])
      // The badge counted rows as they loaded, rising, before Synced.
      const counts = seen.badge
        .map((label) => /^Getting the household: ([\d,]+) rows loaded$/.exec(label)?.[1])
        .filter((n): n is string => n !== undefined)
        .map((n) => Number(n.replaceAll(',', '')))
      expect(counts.length).toBeGreaterThan(1)
      expect(counts).toEqual([...counts].sort((x, y) => x - y))
      expect(seen.badge.at(-1)).toBe('Synced')
      // The new replica was made from the app's migrated template, not initdb and the migrations.
      const replica = await page.evaluate(() => ({
        fromTemplate: performance.getEntriesByName('hearth: replica from template').length,
        openMs: performance.getEntriesByName('hearth: replica open')[0]?.duration ?? -1,
        householdMs: performance.getEntriesByName('hearth: household open')[0]?.duration ?? -1,
      }))
      console.log(
        `first sign-in: the new replica opened in ${Math.round(replica.openMs)} ms, migrated and ready in ${Math.round(replica.householdMs)} ms`,
      )
      expect(replica.fromTemplate).toBe(1)

      // The assignment made while the month came from the server is a change of this app like any
      // other: Ctrl+Z takes it back.
      await page.keyboard.press('Control+z')
      await expect
        .poll(async () => (await owner.api.get(cell)).body.assignedCents, { timeout: 60_000 })
        .toBe('120000')
    } finally {
      await context.close()
    }
  }, 300_000)
})
