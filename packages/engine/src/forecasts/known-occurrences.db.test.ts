import { operations } from '@hearth/engine'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { type BudgetHousehold, budgetHousehold } from '../budgets/test-fixture.ts'
import { forecastMonth } from './forecast.ts'

/** Asked on the 27th of November 2026 (household time), a day before the month's rent is due. */
const TODAY = '2026-11-27'
const NOW = new Date('2026-11-27T12:00:00Z')

/** A household paying rent of 1,500.00 to Landlord on the last day of August, September and October. */
async function renting(): Promise<BudgetHousehold & { checking: string; rent: string; food: string }> {
  const h = await budgetHousehold()
  const group = await h.group('Home')
  const rent = await h.category(group, 'Rent')
  const food = await h.category(group, 'Food')
  const checking = await h.account('cash')
  for (const date of ['2026-08-31', '2026-09-30', '2026-10-31']) await pay(h, checking, rent, date)
  // Food: 60.00 early and 30.00 on the 28th of each month, to show the rest of a category is kept.
  for (const m of ['2026-08', '2026-09', '2026-10']) {
    await h.spend(checking, food, -6_000, `${m}-05`)
    await h.spend(checking, food, -3_000, `${m}-28`)
  }
  return { ...h, checking, rent, food }
}

function pay(h: BudgetHousehold, accountId: string, categoryId: string, date: string): Promise<unknown> {
  return h.run(operations.transactions.create, {
    id: ulid(),
    accountId,
    categoryId,
    date,
    amountCents: -150_000,
    payeeName: 'Landlord',
  })
}

async function cellOf(h: BudgetHousehold, month: string, categoryId: string, today = TODAY) {
  const forecast = await forecastMonth(h.store.db, h.ctx.householdId, month, today)
  return forecast.categories.find((c) => c.categoryId === categoryId)
}

describe('forecasts count each expected payment once', () => {
  it('projects month-end rent into this month and next from complete months only', async () => {
    const h = await renting()
    // November has no rent yet: it is projected for the 30th, after today.
    expect(await cellOf(h, '2026-11', h.rent)).toMatchObject({
      projectedCents: '150000',
      totalCents: '150000',
    })
    // December reads August to October, not November, which is not over (that gave 1,000.00).
    expect(await cellOf(h, '2026-12', h.rent)).toMatchObject({
      projectedCents: '150000',
      totalCents: '150000',
    })
    // Food after the 27th: 30.00 a month; December projects the whole month, 90.00.
    expect(await cellOf(h, '2026-11', h.food)).toMatchObject({ projectedCents: '3000' })
    expect(await cellOf(h, '2026-12', h.food)).toMatchObject({ projectedCents: '9000' })
  })

  it('lets a tracked recurrence replace its series’ projection', async () => {
    const h = await renting()
    const payee = await h.read(operations.payees.list, {})
    const landlord = (payee as { items: { id: string; name: string }[] }).items.find(
      (p) => p.name === 'Landlord',
    )!
    await h.run(
      operations.recurrences.create,
      {
        id: ulid(),
        name: 'Rent',
        accountId: h.checking,
        amountCents: -150_000,
        payeeId: landlord.id,
        categoryId: h.rent,
        frequency: 'monthly_last_day',
        startDate: '2026-11-30',
      },
      { now: NOW },
    )
    // Scheduled 1,500.00 on the 30th, and nothing projected from the same payments' history.
    expect(await cellOf(h, '2026-11', h.rent)).toMatchObject({
      scheduledCents: '150000',
      projectedCents: '0',
      totalCents: '150000',
    })
    expect(await cellOf(h, '2026-12', h.rent)).toMatchObject({
      scheduledCents: '150000',
      projectedCents: '0',
      totalCents: '150000',
    })
    // Food, another series, is projected as before.
    expect(await cellOf(h, '2026-11', h.food)).toMatchObject({ projectedCents: '3000' })

    // Paid by hand two days early (asked that day): the occurrence is paid, not scheduled again.
    await pay(h, h.checking, h.rent, '2026-11-28')
    expect(await cellOf(h, '2026-11', h.rent, '2026-11-28')).toMatchObject({
      actualCents: '150000',
      scheduledCents: '0',
      totalCents: '150000',
    })
  })

  it('lets a future-dated row replace its series’ projection', async () => {
    const h = await renting()
    await pay(h, h.checking, h.rent, '2026-11-30')
    expect(await cellOf(h, '2026-11', h.rent)).toMatchObject({
      actualCents: '0',
      scheduledCents: '150000',
      projectedCents: '0',
      totalCents: '150000',
    })
    // A future-dated row in December does the same for December.
    await pay(h, h.checking, h.rent, '2026-12-31')
    expect(await cellOf(h, '2026-12', h.rent)).toMatchObject({
      scheduledCents: '150000',
      totalCents: '150000',
    })
  })
})
