/**
 * The forecasts screen in Chromium, through the real server: this month's and next month's
 * figures per category (spent so far, scheduled, projected, the total) are REST's
 * `GET H/forecasts/{month}`, set beside what REST's budget assigned, with the method in a sentence.
 */
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { expectOk } from '../src/answers.ts'
import { chromiumPath } from '../src/browser.ts'
import { useTestServer } from '../src/index.ts'
import { signInToApp } from './app-sign-in.ts'
import { useWebBrowser } from './web-build.ts'

const server = useTestServer()
const browser = useWebBrowser()

function monthsBack(back: number, day: number): string {
  const now = new Date()
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, day)).toISOString().slice(0, 10)
}

/** A month's table as cents: each row's key, then assigned, actual, scheduled, projected, total. */
function tableOf(page: Page, month: string) {
  return page.$$eval(`section[data-forecast="${month}"] tbody tr`, (trs) =>
    trs.map((tr) => [
      tr.getAttribute('data-key'),
      ...[...tr.querySelectorAll('td')].slice(0, 5).map((td) => td.getAttribute('data-cents')),
    ]),
  )
}

describe.skipIf(!chromiumPath())('the forecasts screen in Chromium', () => {
  it('shows REST’s forecast for this month and next beside the budget', { timeout: 240_000 }, async () => {
    const owner = await server.newOwner()
    const { api } = owner
    const h = `/households/${owner.householdId}`
    const checking = await expectOk(
      api.post(`${h}/accounts`, {
        name: 'Checking',
        type: 'cash',
        openingBalanceCents: 1_000_000,
        openingBalanceDate: monthsBack(6, 1),
      }),
    )
    const group = await expectOk(api.post(`${h}/category-groups`, { name: 'Everyday' }))
    const food = await expectOk(api.post(`${h}/categories`, { groupId: group.id, name: 'Groceries' }))
    const rent = await expectOk(api.post(`${h}/categories`, { groupId: group.id, name: 'Rent' }))
    const fun = await expectOk(api.post(`${h}/categories`, { groupId: group.id, name: 'Fun' }))
    for (let back = 5; back >= 0; back--) {
      for (const [day, cents] of [
        [3, -6_100],
        [12, -4_800],
        [26, -7_300],
      ] as const) {
        const date = monthsBack(back, day)
        if (date > new Date().toISOString().slice(0, 10)) continue
        await expectOk(
          api.post(`${h}/transactions`, {
            accountId: checking.id,
            date,
            amountCents: cents - back * 100,
            payeeName: 'Grocer',
            categoryId: food.id,
          }),
        )
      }
    }
    // Rent tracked as a bill on the last day: scheduled, not projected.
    await expectOk(
      api.post(`${h}/recurrences`, {
        name: 'Rent',
        accountId: checking.id,
        amountCents: -150_000,
        categoryId: rent.id,
        frequency: 'monthly_last_day',
        startDate: monthsBack(0, 1),
      }),
    )
    const month = monthsBack(0, 1).slice(0, 7)
    const next = monthsBack(-1, 1).slice(0, 7)
    await expectOk(api.patch(`${h}/budgets/${month}/categories/${food.id}`, { assignedCents: 20_000 }))
    await expectOk(api.patch(`${h}/budgets/${month}/categories/${rent.id}`, { assignedCents: 150_000 }))
    await expectOk(api.patch(`${h}/budgets/${next}/categories/${fun.id}`, { assignedCents: 5_000 }))

    const context = await browser().newContext({ viewport: { width: 1280, height: 1200 } })
    const page = await context.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (error) => pageErrors.push(error.message))
    try {
      await signInToApp(page, { url: server.url, token: api.token!, device: 'Forecasts' })
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Forecasts' })
        .click({ timeout: 120_000 })
      await page.getByRole('heading', { name: 'Forecasts', level: 1 }).waitFor()
      expect(await page.locator('[data-method]').textContent()).toMatch(
        /^Each category’s forecast is [^.]*\.$/,
      )

      for (const m of [month, next]) {
        const forecast = await expectOk(api.get(`${h}/forecasts/${m}`))
        const budget = await expectOk(api.get(`${h}/budgets/${m}`))
        const assigned = new Map<string, string>(
          budget.groups.flatMap((g: { categories: { id: string; assignedCents: string }[] }) =>
            g.categories.map((c) => [c.id, c.assignedCents] as const),
          ),
        )
        const expected = forecast.categories.map(
          (c: {
            categoryId: string | null
            actualCents: string
            scheduledCents: string
            projectedCents: string
            totalCents: string
          }) => [
            c.categoryId ?? 'none',
            (c.categoryId && assigned.get(c.categoryId)) ?? '0',
            c.actualCents,
            c.scheduledCents,
            c.projectedCents,
            c.totalCents,
          ],
        )
        expect(expected.length).toBeGreaterThan(0)
        const shown = async () => {
          const rows = await tableOf(page, m)
          // Only the categories REST forecasts; a budgeted one with nothing forecast is shown with zeros.
          return rows.filter((r) => expected.some((e: string[]) => e[0] === r[0]))
        }
        const byKey = (rows: (string | null)[][]) =>
          [...rows].sort((a, b) => String(a[0]).localeCompare(String(b[0])))
        await expect.poll(async () => byKey(await shown()), { timeout: 60_000 }).toEqual(byKey(expected))
        const totals = await page.$$eval(`section[data-forecast="${m}"] tfoot td`, (tds) =>
          tds.slice(1, 5).map((td) => td.getAttribute('data-cents')),
        )
        expect(totals).toEqual([
          forecast.totals.actualCents,
          forecast.totals.scheduledCents,
          forecast.totals.projectedCents,
          forecast.totals.totalCents,
        ])
      }
      // Next month's Fun has money assigned and nothing forecast: listed beside zeros.
      const funRow = (await tableOf(page, next)).find((r) => r[0] === fun.id)
      expect(funRow).toEqual([fun.id, '5000', '0', '0', '0', '0'])
      // Rent is a known bill this month: scheduled in full, nothing projected on top.
      const rentRow = (await tableOf(page, month)).find((r) => r[0] === rent.id)
      expect(rentRow?.slice(3, 5)).toEqual(['150000', '0'])
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
