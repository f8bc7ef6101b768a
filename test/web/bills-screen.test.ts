/**
 * The bills and subscriptions screen in Chromium, through the real server: a detected
 * subscription whose price went up is shown with its old and new price and tracked from the
 * screen; a tracked bill's price change is shown and applied; the low-balance check names the day
 * checking goes below zero, as REST's upcoming forecast says; a bill is edited, booked now, paused
 * and resumed.
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

/** `YYYY-MM-DD` of `day` in the month `back` months before today's (UTC, like the server's default zone). */
function monthsBack(back: number, day: number): string {
  const now = new Date()
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, day)).toISOString().slice(0, 10)
}
function daysAhead(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)
}

describe.skipIf(!chromiumPath())('the bills and subscriptions screen in Chromium', () => {
  it('tracks a detected subscription, applies a price change, warns of a low balance, edits and books a bill, pauses and resumes one', {
    timeout: 240_000,
  }, async () => {
    const owner = await server.newOwner()
    const { api } = owner
    const h = `/households/${owner.householdId}`
    const usd = (cents: string | number) => formatCents(String(cents), 'USD')
    const checking = await expectOk(
      api.post(`${h}/accounts`, {
        name: 'Checking',
        type: 'cash',
        openingBalanceCents: 50_000,
        openingBalanceDate: monthsBack(8, 1),
      }),
    )
    // A streaming service on the 10th, 12.99 four times, then 14.99 twice; the latest charge is in
    // the past and the next one not overdue.
    const base = new Date().getUTCDate() >= 12 ? 0 : 1
    for (let i = 5; i >= 0; i--) {
      await expectOk(
        api.post(`${h}/transactions`, {
          accountId: checking.id,
          date: monthsBack(base + i, 10),
          amountCents: i >= 2 ? -1_299 : -1_499,
          payeeName: 'Streamly',
        }),
      )
    }
    // A tracked water bill of 30.00 on the 1st, charged 33.00 the last two times.
    const waterPayee = await expectOk(api.post(`${h}/payees`, { name: 'City Water' }))
    const water = await expectOk(
      api.post(`${h}/recurrences`, {
        name: 'Water',
        accountId: checking.id,
        amountCents: -3_000,
        payeeId: waterPayee.id,
        frequency: 'monthly',
        dayOfMonth: 1,
        startDate: monthsBack(6, 1),
      }),
    )
    for (const [date, amountCents] of [
      [monthsBack(3, 1), -3_000],
      [monthsBack(2, 1), -3_000],
      [monthsBack(1, 2), -3_300],
      [monthsBack(0, 1), -3_300],
    ] as const) {
      await expectOk(
        api.post(`${h}/transactions`, { accountId: checking.id, date, amountCents, payeeId: waterPayee.id }),
      )
    }
    // Insurance dated three days ahead takes checking below zero.
    await expectOk(
      api.post(`${h}/transactions`, {
        accountId: checking.id,
        date: daysAhead(3),
        amountCents: -40_000,
        payeeName: 'Insurer',
      }),
    )
    const suggestions = (await expectOk(api.get(`${h}/recurrences/suggestions`))).items as {
      key: string
      kind: string
      name: string
      amountCents: string
      previousAmountCents: string | null
    }[]
    const streamly = suggestions.find((s) => s.kind === 'recurring' && s.name === 'Streamly')!
    const waterPrice = suggestions.find((s) => s.kind === 'priceChange')!
    expect(streamly).toMatchObject({ amountCents: '-1499', previousAmountCents: '-1299' })
    expect(waterPrice).toMatchObject({ amountCents: '-3300', previousAmountCents: '-3000' })
    const upcoming = await expectOk(api.get(`${h}/recurrences/upcoming?days=60`))

    const context = await browser().newContext({ viewport: { width: 1280, height: 1200 } })
    const page = await context.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (error) => pageErrors.push(error.message))
    try {
      await signInToApp(page, { url: server.url, token: api.token!, device: 'Bills' })
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Bills' })
        .click({ timeout: 120_000 })
      await page.getByRole('heading', { name: 'Bills and subscriptions', level: 1 }).waitFor()

      // The detected subscription, with its old and new price, as REST detects it.
      const detected = page.locator(`li[data-suggestion="${streamly.key}"]`)
      await detected.waitFor({ timeout: 60_000 })
      expect(await detected.locator('[data-cents]').first().getAttribute('data-cents')).toBe('-1499')
      expect(await detected.locator('[data-previous-cents]').getAttribute('data-previous-cents')).toBe(
        '-1299',
      )
      expect(await detected.textContent()).toContain(usd(-1_299))
      // The tracked bill's price change, old and new.
      const price = page.locator(`li[data-suggestion="${waterPrice.key}"]`)
      expect(await price.textContent()).toContain(`${usd(-3_300)} the last two times, not ${usd(-3_000)}`)

      // The low-balance check: the day checking ends below zero, as REST's forecast has it.
      type Item = { date: string; accountId: string; projectedBalanceCents: string }
      const mine = (upcoming.items as Item[]).filter((i) => i.accountId === checking.id)
      const firstBelow = mine.find((i) => BigInt(i.projectedBalanceCents) < 0n)!
      // A day is read by its last item (the water bill may fall on the same day).
      const crossing = mine.filter((i) => i.date === firstBelow.date).at(-1)!
      expect(crossing.date).toBe(daysAhead(3))
      const low = page.locator('[data-low-balance="ahead"] p')
      await expect.poll(() => low.getAttribute('data-date'), { timeout: 20_000 }).toBe(crossing.date)
      expect(await low.textContent()).toContain(usd(crossing.projectedBalanceCents))
      // Each listed item shows the balance REST projects after it.
      const shown = () =>
        page.$$eval('[data-table="upcoming"] tbody tr td:last-child', (cells) =>
          cells.map((c) => c.getAttribute('data-cents')),
        )
      await expect
        .poll(shown, { timeout: 20_000 })
        .toEqual(upcoming.items.map((i: { projectedBalanceCents: string }) => i.projectedBalanceCents))

      // Track the subscription with the keyboard, and take the water bill's new price.
      await page.getByRole('button', { name: 'Track it: Streamly' }).focus()
      await page.keyboard.press('Enter')
      await page.getByRole('button', { name: 'Use the new price: Water' }).click()
      const tracked = async () =>
        (
          (await expectOk(api.get(`${h}/recurrences`))).items as {
            name: string
            amountCents: string
            origin: string
          }[]
        )
          .map((r) => [r.name, r.amountCents, r.origin])
          .sort()
      await expect.poll(tracked, { timeout: 30_000 }).toEqual([
        ['Streamly', '-1499', 'detected'],
        ['Water', '-3300', 'manual'],
      ])
      await expect.poll(() => detected.count(), { timeout: 20_000 }).toBe(0)
      await page.locator('li[data-recurrence] strong', { hasText: 'Streamly' }).waitFor()

      // Edit the tracked subscription: a new name and its category; then book its next charge now.
      const fun = await expectOk(
        api.post(`${h}/categories`, {
          groupId: (await expectOk(api.post(`${h}/category-groups`, { name: 'Wants' }))).id,
          name: 'Streaming',
        }),
      )
      await page.getByRole('button', { name: 'Edit Streamly' }).click()
      const editor = page.getByRole('form', { name: 'Edit Streamly' })
      await editor.getByLabel('Name').fill('Streamly Premium')
      await expect
        .poll(() => editor.getByLabel('Category').locator('option').allTextContents(), { timeout: 20_000 })
        .toContain('Streaming')
      await editor.getByLabel('Category').selectOption({ label: 'Streaming' })
      await editor.getByLabel('Name').press('Enter')
      type Tracked = { id: string; name: string; categoryId: string | null; lastRunDate: string | null }
      const streamlyNow = async () =>
        ((await expectOk(api.get(`${h}/recurrences`))).items as Tracked[]).find((r) =>
          r.name.startsWith('Streamly'),
        )!
      await expect
        .poll(
          async () => {
            const r = await streamlyNow()
            return [r.name, r.categoryId]
          },
          { timeout: 30_000 },
        )
        .toEqual(['Streamly Premium', fun.id])
      await page.getByRole('button', { name: 'Book now: Streamly Premium' }).click()
      await expect.poll(async () => (await streamlyNow()).lastRunDate, { timeout: 30_000 }).not.toBeNull()
      const booked = await expectOk(api.get(`${h}/transactions?accountId=${checking.id}&limit=200`))
      expect(
        (booked.items as { amountCents: string; source: string }[]).filter(
          (t) => t.source === 'recurring' && t.amountCents === '-1499',
        ),
      ).toHaveLength(1)

      // Pause and resume the water bill; the server hears both.
      await page.getByRole('button', { name: 'Pause Water' }).click()
      await expect
        .poll(async () => (await expectOk(api.get(`${h}/recurrences/${water.id}`))).status, {
          timeout: 30_000,
        })
        .toBe('paused')
      await page.getByRole('button', { name: 'Resume Water' }).click()
      await expect
        .poll(async () => (await expectOk(api.get(`${h}/recurrences/${water.id}`))).status, {
          timeout: 30_000,
        })
        .toBe('active')

      // The month calendar ends each day where REST's forecast does, with the water bill at its
      // new price and the subscription tracked now.
      const later = ((await expectOk(api.get(`${h}/recurrences/upcoming?days=60`))).items as Item[]).filter(
        (i) => i.accountId === checking.id && i.date === crossing.date,
      )
      expect(later.at(-1)!.projectedBalanceCents).not.toBe(crossing.projectedBalanceCents)
      await page.locator('label', { hasText: 'Calendar' }).click()
      const cell = page.locator(`[data-table="calendar"] td[data-date="${crossing.date}"]`)
      if (crossing.date.slice(0, 7) !== new Date().toISOString().slice(0, 7)) {
        await page.getByRole('button', { name: 'Next month' }).click()
      }
      await expect
        .poll(() => cell.locator('[data-balance]').getAttribute('data-balance'), { timeout: 20_000 })
        .toBe(later.at(-1)!.projectedBalanceCents)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
