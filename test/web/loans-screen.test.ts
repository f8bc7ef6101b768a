/**
 * The loans screen in Chromium, through the real server: a mortgage's payoff, interest to date
 * and still to pay, and its schedule as REST's projection has them; a what-if of 200.00 extra a
 * month shown beside the current plan with the months and interest REST's simulation saves, and
 * a target payoff month answered with REST's solved payment; the terms history. New terms typed
 * on the screen (a new rate from next month) reach REST, and bad input is refused in words.
 */
import { describe, expect, it } from 'vitest'
import { formatCents } from '../../packages/web/src/format.ts'
import { expectOk } from '../src/answers.ts'
import { chromiumPath } from '../src/browser.ts'
import { useTestServer } from '../src/index.ts'
import { signInToApp } from './app-sign-in.ts'
import { useWebBrowser } from './web-build.ts'

const server = useTestServer()
const browser = useWebBrowser()

/** The first of the month `delta` months from today's (UTC). */
function monthStart(delta: number): string {
  const now = new Date()
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + delta, 1)).toISOString().slice(0, 10)
}

describe.skipIf(!chromiumPath())('the loans screen in Chromium', () => {
  it('shows the plan and a what-if with the months and interest REST says it saves', {
    timeout: 240_000,
  }, async () => {
    const owner = await server.newOwner()
    const { api } = owner
    const h = `/households/${owner.householdId}`
    const usd = (cents: string) => formatCents(cents, 'USD')
    const loan = await expectOk(api.post(`${h}/accounts`, { name: 'Mortgage', type: 'loan' }))
    // docs/loans.md's $200,000 at 6.5% for 30 years, begun 14 months ago, then escrow added.
    await expectOk(
      api.put(`${h}/accounts/${loan.id}/loan-terms`, {
        effectiveDate: monthStart(-15),
        principalCents: 20_000_000,
        annualRatePercent: '6.5',
        termMonths: 360,
        firstPaymentDate: monthStart(-14),
      }),
    )
    await expectOk(
      api.put(`${h}/accounts/${loan.id}/loan-terms`, { effectiveDate: monthStart(-3), escrowCents: 25_000 }),
    )
    const plan = await expectOk(api.get(`${h}/accounts/${loan.id}/loan-projection`))
    const whatIf = await expectOk(api.get(`${h}/accounts/${loan.id}/loan-simulation?extraMonthlyCents=20000`))
    expect(whatIf.comparison.monthsSaved).toBeGreaterThan(0)

    const context = await browser().newContext({ viewport: { width: 1280, height: 1400 } })
    const page = await context.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (error) => pageErrors.push(error.message))
    try {
      await signInToApp(page, { url: server.url, token: api.token!, device: 'Loans' })
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Loans' })
        .click({ timeout: 120_000 })
      await page.getByRole('heading', { name: 'Loans', level: 1 }).waitFor()

      const figures = page.locator('[data-panel="plan"]')
      await figures.waitFor({ timeout: 60_000 })
      const figure = (term: string) => figures.locator('div', { hasText: term }).locator('dd')
      expect(await figure('Paid off').getAttribute('data-date')).toBe(plan.payoffDate)
      expect(await figure('Interest still to pay').getAttribute('data-cents')).toBe(
        plan.remainingInterestCents,
      )
      expect(await figure('Interest to date').textContent()).toBe(
        usd(String(BigInt(plan.totalInterestCents) - BigInt(plan.remainingInterestCents))),
      )
      expect(await figure('Monthly payment').textContent()).toContain(usd(plan.paymentCents))
      // The balance chart draws straight lines, and has a name.
      expect(await page.locator('[data-loan] canvas[role="img"]').getAttribute('aria-label')).toContain(
        'Balance',
      )
      // The schedule opens on this month's page; its rows are REST's.
      const rows = await page.$$eval('[data-table="schedule"] tbody tr', (trs) =>
        trs.map((tr) => [
          Number(tr.getAttribute('data-number')),
          tr.querySelector('td:last-child')?.getAttribute('data-cents'),
        ]),
      )
      expect(rows.length).toBeGreaterThan(0)
      for (const [n, balance] of rows) expect(balance).toBe(plan.schedule[(n as number) - 1].balanceCents)
      await page.getByRole('button', { name: 'Later payments' }).click()
      expect(await page.locator('[data-table="schedule"] tbody tr').first().getAttribute('data-number')).toBe(
        String((rows[0]![0] as number) + 24),
      )

      // What if 200.00 more each month: typed and submitted from the keyboard.
      await page.getByLabel('Extra each month').fill('200')
      await page.getByLabel('Extra each month').press('Enter')
      const comparison = page.locator('[data-comparison]')
      await expect
        .poll(() => comparison.getAttribute('data-months-saved'), { timeout: 30_000 })
        .toBe(String(whatIf.comparison.monthsSaved))
      expect(await comparison.getAttribute('data-interest-saved-cents')).toBe(
        whatIf.comparison.interestSavedCents,
      )
      expect(await comparison.locator('[data-field="interest-saved"]').textContent()).toBe(
        usd(whatIf.comparison.interestSavedCents),
      )
      expect(await comparison.locator('td[data-cents]').allTextContents()).toEqual([
        usd(whatIf.comparison.basePaymentCents),
        usd(whatIf.paymentCents),
        usd(whatIf.comparison.baseTotalInterestCents),
        usd(whatIf.totalInterestCents),
      ])

      // Paid off by a target month instead: the payment REST solves.
      const target = `${Number(plan.payoffYearMonth.slice(0, 4)) - 10}${plan.payoffYearMonth.slice(4)}`
      const solved = await expectOk(
        api.get(`${h}/accounts/${loan.id}/loan-simulation?targetPayoffYearMonth=${target}`),
      )
      await page.getByRole('button', { name: 'Clear' }).click()
      await page.getByLabel('Paid off by').fill(target)
      await page.getByRole('button', { name: 'Compare with the current plan' }).click()
      await expect
        .poll(() => comparison.getAttribute('data-months-saved'), { timeout: 30_000 })
        .toBe(String(solved.comparison.monthsSaved))
      expect(await comparison.locator('td[data-cents]').nth(1).getAttribute('data-cents')).toBe(
        solved.paymentCents,
      )

      // A different payment with a target is one question too many, said before asking.
      await page.getByLabel('Different monthly payment').fill('1500')
      await page.getByRole('button', { name: 'Compare with the current plan' }).click()
      await page.getByRole('alert').filter({ hasText: 'not both' }).waitFor()

      // The terms history, newest first.
      const history = await expectOk(api.get(`${h}/accounts/${loan.id}/loan-terms-history`))
      expect(
        await page.$$eval('[data-panel="terms"] tbody tr', (trs) =>
          trs.map((tr) => tr.getAttribute('data-effective')),
        ),
      ).toEqual(history.items.map((t: { effectiveDate: string }) => t.effectiveDate))
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('takes new terms from a date on, through the loans mutators, and says what it refuses', {
    timeout: 240_000,
  }, async () => {
    const owner = await server.newOwner()
    const { api } = owner
    const h = `/households/${owner.householdId}`
    const loan = await expectOk(api.post(`${h}/accounts`, { name: 'Mortgage', type: 'loan' }))
    await expectOk(
      api.put(`${h}/accounts/${loan.id}/loan-terms`, {
        effectiveDate: monthStart(-15),
        principalCents: 20_000_000,
        annualRatePercent: '6.5',
        termMonths: 360,
        firstPaymentDate: monthStart(-14),
      }),
    )
    const context = await browser().newContext({ viewport: { width: 1280, height: 1400 } })
    const page = await context.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (error) => pageErrors.push(error.message))
    try {
      await signInToApp(page, { url: server.url, token: api.token!, device: 'Loan terms' })
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Loans' })
        .click({ timeout: 120_000 })
      const form = page.getByRole('form', { name: 'New terms for Mortgage' })
      await form.waitFor({ timeout: 60_000 })
      // Nothing new: said before asking; a rate that is no percentage: the engine's words.
      await form.getByRole('button', { name: 'Save terms' }).click()
      await form.getByRole('alert').filter({ hasText: 'new rate, a new payment' }).waitFor()
      await form.getByLabel('From').fill(monthStart(1))
      await form.getByLabel('Annual rate (%)').fill('six')
      await form.getByRole('button', { name: 'Save terms' }).click()
      await form.getByRole('alert').filter({ hasText: 'percentage' }).waitFor()

      // A new rate from next month: in the terms history on the screen and over REST.
      await form.getByLabel('Annual rate (%)').fill('5.25')
      await form.getByLabel('Annual rate (%)').press('Enter')
      await form.getByRole('status').filter({ hasText: 'saved' }).waitFor()
      await page.locator(`[data-panel="terms"] tbody tr[data-effective="${monthStart(1)}"]`).waitFor()
      await expect
        .poll(
          async () => {
            const history = await expectOk(api.get(`${h}/accounts/${loan.id}/loan-terms-history`))
            const added = history.items.find(
              (t: { effectiveDate: string }) => t.effectiveDate === monthStart(1),
            )
            return added ? Number(added.annualRatePercent) : null
          },
          { timeout: 60_000 },
        )
        .toBe(5.25)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
