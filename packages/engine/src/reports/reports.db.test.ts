import { operations } from '@hearth/engine'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { ageOfMoneySeries, type CashFlow } from '../budgets/age-of-money.ts'
import { ageOfMoneyFlows } from '../budgets/age-of-money-query.ts'
import { type LedgerHousehold, ledgerHousehold } from '../ledger/test-fixture.ts'
import { keepMonths, readKeptMonths } from './closings.ts'

/** Mid-March 2026 in the household's zone: the default range is April 2025 to March 2026. */
const now = new Date('2026-03-15T12:00:00Z')

async function account(
  h: LedgerHousehold,
  type: string,
  currency = 'USD',
  opening?: number,
): Promise<string> {
  const id = ulid()
  await h.run(operations.accounts.create, {
    id,
    name: `${type} ${id.slice(-4)}`,
    type,
    currency,
    ...(opening !== undefined && { openingBalanceCents: opening, openingBalanceDate: '2025-12-15' }),
  })
  return id
}

async function row(h: LedgerHousehold, accountId: string, date: string, cents: number, extra = {}) {
  const id = ulid()
  await h.run(operations.transactions.create, { id, accountId, date, amountCents: cents, ...extra })
  return id
}

async function transfer(h: LedgerHousehold, from: string, to: string, cents: number, date: string) {
  await h.run(operations.transactions.transfer, {
    fromAccountId: from,
    toAccountId: to,
    amountCents: cents,
    date,
    fromTransactionId: ulid(),
    toTransactionId: ulid(),
  })
}

/**
 * One household for the reports: checking (USD, 1,000.00 opening on 2025-12-15), a USD card, a
 * euro savings account at 1.1, a yen account without a rate, and a brokerage (tracking).
 */
async function household() {
  const h = await ledgerHousehold({ baseCurrency: 'USD', timeZone: 'UTC' })
  h.ctx.now = now
  await h.run(operations.exchangeRates.upsert, { fromCurrency: 'EUR', toCurrency: 'USD', rate: '1.1' })
  const checking = await account(h, 'cash', 'USD', 100_000)
  const card = await account(h, 'credit')
  const euros = await account(h, 'cash', 'EUR', 50_000)
  const yen = await account(h, 'cash', 'JPY', 1_000_000)
  const brokerage = await account(h, 'tracking', 'USD', 2_000_000)
  const groupId = ulid()
  await h.run(operations.categoryGroups.create, { id: groupId, name: 'Living' })
  const food = ulid()
  await h.run(operations.categories.create, { id: food, groupId, name: 'Food' })
  const fun = ulid()
  await h.run(operations.categories.create, { id: fun, groupId, name: 'Fun' })

  // January: pay 3,000.00; food 120.00 on the card; a split of 50.00 food and 30.00 fun.
  await row(h, checking, '2026-01-02', 300_000, { payeeName: 'Employer' })
  await row(h, card, '2026-01-05', -12_000, { categoryId: food, payeeName: 'Grocer' })
  await row(h, checking, '2026-01-09', -8_000, {
    payeeName: 'Market',
    splits: [
      { amountCents: -5_000, categoryId: food },
      { amountCents: -3_000, categoryId: fun },
    ],
  })
  // Transfers are no income or spending: a card payment and a move to the brokerage.
  await transfer(h, checking, card, 12_000, '2026-01-20')
  await transfer(h, checking, brokerage, 100_000, '2026-01-25')
  // February: 10.01 of euro spending (11.011 -> 11.01 dollars), a deleted row, yen spending.
  await row(h, euros, '2026-02-03', -1_001, { categoryId: fun, payeeName: 'Café' })
  const gone = await row(h, checking, '2026-02-04', -99_999)
  await h.run(operations.transactions.delete, { id: gone })
  await row(h, yen, '2026-02-05', -5_000, { categoryId: food })
  // The brokerage gains 500.00 in March: net worth, not income (off budget).
  await row(h, brokerage, '2026-03-02', 50_000)
  return { h, checking, card, euros, yen, brokerage, food, fun }
}

describe('reports.netWorth', () => {
  it('takes every account at each month end, converted, assets apart from liabilities', async () => {
    const { h } = await household()
    const report = await h.read(operations.reports.netWorth, { fromMonth: '2025-11', toMonth: '2026-03' })
    // Dec: 1,000 + 500€·1.1 = 550 + 20,000 brokerage. Jan: checking 1,000+3,000-80-120-1,000 = 2,800,
    // card 0, brokerage 21,000, euros 550. Feb: euros 489.99€ -> 538.989 -> 538.99. Mar: +500.
    expect(report).toEqual({
      baseCurrency: 'USD',
      fromMonth: '2025-11',
      toMonth: '2026-03',
      months: [
        { month: '2025-11', date: '2025-11-30', assetsCents: '0', liabilitiesCents: '0', netWorthCents: '0' },
        {
          month: '2025-12',
          date: '2025-12-31',
          assetsCents: '2155000',
          liabilitiesCents: '0',
          netWorthCents: '2155000',
        },
        {
          month: '2026-01',
          date: '2026-01-31',
          assetsCents: '2435000',
          liabilitiesCents: '0',
          netWorthCents: '2435000',
        },
        {
          month: '2026-02',
          date: '2026-02-28',
          assetsCents: '2433899',
          liabilitiesCents: '0',
          netWorthCents: '2433899',
        },
        {
          month: '2026-03',
          date: '2026-03-31',
          assetsCents: '2483899',
          liabilitiesCents: '0',
          netWorthCents: '2483899',
        },
      ],
      unconvertedCurrencies: ['JPY'],
    })
  })

  it('counts a card below zero as a liability and defaults to the twelve months to today', async () => {
    const { h, card } = await household()
    await row(h, card, '2026-03-10', -25_000)
    const report = await h.read(operations.reports.netWorth, {})
    expect([report.fromMonth, report.toMonth, report.months.length]).toEqual(['2025-04', '2026-03', 12])
    expect(report.months.at(-1)).toMatchObject({ assetsCents: '2483899', liabilitiesCents: '25000' })
    expect(report.months.at(-1)!.netWorthCents).toBe('2458899')
  })
})

describe('reports.cashFlow', () => {
  it('counts income against spending on budget accounts, transfers and openings left out', async () => {
    const { h } = await household()
    const report = await h.read(operations.reports.cashFlow, { fromMonth: '2025-12', toMonth: '2026-03' })
    expect(report.months).toEqual([
      { month: '2025-12', incomeCents: '0', spendingCents: '0', netCents: '0' },
      { month: '2026-01', incomeCents: '300000', spendingCents: '20000', netCents: '280000' },
      { month: '2026-02', incomeCents: '0', spendingCents: '1101', netCents: '-1101' },
      { month: '2026-03', incomeCents: '0', spendingCents: '0', netCents: '0' },
    ])
    expect(report.totals).toEqual({ incomeCents: '300000', spendingCents: '21101', netCents: '278899' })
    expect(report.unconvertedCurrencies).toEqual(['JPY'])
  })

  it('refuses a backward range and one past 240 months', async () => {
    const { h } = await household()
    await expect(
      h.read(operations.reports.cashFlow, { fromMonth: '2026-03', toMonth: '2026-01' }),
    ).rejects.toMatchObject({
      code: 'INVALID_DATE_RANGE',
    })
    await expect(
      h.read(operations.reports.cashFlow, { fromMonth: '2000-01', toMonth: '2020-01' }),
    ).rejects.toMatchObject({
      code: 'WINDOW_TOO_LARGE',
    })
    await expect(h.read(operations.reports.netWorth, { fromMonth: '2026-13' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    })
  })
})

describe('reports.spending', () => {
  it('groups by category and by payee in the base currency, split rows by their parts', async () => {
    const { h, food, fun } = await household()
    const range = { fromDate: '2026-01-01', toDate: '2026-02-28' }
    const byCategory = await h.read(operations.reports.spending, { ...range, groupBy: 'category' })
    expect(byCategory.groups).toEqual(
      [
        { id: null, name: 'Uncategorized', spentCents: '-300000', netSpentCents: '-300000', count: 1 },
        { id: food, name: 'Food', spentCents: '17000', netSpentCents: '17000', count: 2 },
        { id: fun, name: 'Fun', spentCents: '4101', netSpentCents: '4101', count: 2 },
      ].sort((a, b) => Number(b.spentCents) - Number(a.spentCents)),
    )
    expect(byCategory).toMatchObject({
      baseCurrency: 'USD',
      spentCents: '21101',
      incomeCents: '300000',
      unconvertedCurrencies: ['JPY'],
    })
    const byPayee = await h.read(operations.reports.spending, { ...range, groupBy: 'payee' })
    expect(byPayee.groups.map((g) => [g.name, g.spentCents])).toEqual([
      ['Grocer', '12000'],
      ['Market', '8000'],
      ['Café', '1101'],
      ['Employer', '-300000'],
    ])
  })

  it('nets refunds out of spending and counts income categories alone as earned', async () => {
    const h = await ledgerHousehold({ baseCurrency: 'USD', timeZone: 'UTC' })
    h.ctx.now = now
    const checking = await account(h, 'cash')
    const living = ulid()
    const income = ulid()
    await h.run(operations.categoryGroups.create, { id: living, name: 'Living' })
    await h.run(operations.categoryGroups.create, { id: income, name: 'Income', isIncome: true })
    const groceries = ulid()
    const salary = ulid()
    await h.run(operations.categories.create, { id: groceries, groupId: living, name: 'Groceries' })
    await h.run(operations.categories.create, { id: salary, groupId: income, name: 'Salary' })
    // 6,400.00 salary; 100.00 of groceries, a 12.50 grocery refund and 5.00 uncategorized: 92.50
    // spent, 6,400.00 earned.
    await row(h, checking, '2026-02-01', 640_000, { categoryId: salary, payeeName: 'Employer' })
    await row(h, checking, '2026-02-02', -10_000, { categoryId: groceries, payeeName: 'Grocer' })
    await row(h, checking, '2026-02-09', 1_250, { categoryId: groceries, payeeName: 'Grocer' })
    await row(h, checking, '2026-02-10', -500, { payeeName: 'Kiosk' })
    const range = { fromDate: '2026-02-01', toDate: '2026-02-28' }
    const byCategory = await h.read(operations.reports.spending, { ...range, groupBy: 'category' })
    expect(byCategory).toMatchObject({
      spentCents: '10500',
      incomeCents: '641250',
      netSpentCents: '9250',
      earnedCents: '640000',
    })
    expect(byCategory.groups.map((g) => [g.name, g.spentCents, g.netSpentCents])).toEqual([
      ['Groceries', '8750', '8750'],
      ['Uncategorized', '500', '500'],
      ['Salary', '-640000', '0'],
    ])
    const byPayee = await h.read(operations.reports.spending, { ...range, groupBy: 'payee' })
    expect(byPayee.groups.map((g) => [g.name, g.netSpentCents])).toEqual([
      ['Grocer', '8750'],
      ['Kiosk', '500'],
      ['Employer', '0'],
    ])
  })
})

describe('reports.ageOfMoney', () => {
  it('answers at each month end what budgets.ageOfMoney answers on that day', async () => {
    const h = await ledgerHousehold({ baseCurrency: 'USD', timeZone: 'UTC' })
    h.ctx.now = now
    const checking = await account(h, 'cash')
    const savings = await account(h, 'cash')
    const card = await account(h, 'credit')
    let seed = 11
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0
      return seed % n
    }
    const day = (n: number) => new Date(Date.UTC(2025, 8, 1 + n)).toISOString().slice(0, 10)
    for (let i = 0; i < 60; i++) {
      const date = day(rand(196))
      const kind = rand(6)
      if (kind === 0) await row(h, checking, date, 50_000 + rand(100_000))
      else if (kind === 1) await transfer(h, checking, savings, 1 + rand(20_000), date)
      else if (kind === 2) await transfer(h, checking, card, 1 + rand(20_000), date)
      else await row(h, rand(2) ? checking : savings, date, -(1 + rand(30_000)))
    }
    const report = await h.read(operations.reports.ageOfMoney, { fromMonth: '2025-09', toMonth: '2026-04' })
    expect(report.months.map((m) => m.asOf)).toEqual([
      '2025-09-30',
      '2025-10-31',
      '2025-11-30',
      '2025-12-31',
      '2026-01-31',
      '2026-02-28',
      '2026-03-15',
      '2026-04-30',
    ])
    for (const m of report.months) {
      const one = await h.read(operations.budgets.ageOfMoney, { asOf: m.asOf })
      expect(m.days, m.asOf).toBe(one.days)
    }
    expect(report.months.filter((m) => m.days !== null).length).toBeGreaterThan(4)
  })

  it('gives the same answer with many flows a day, where most outflows are read as a day’s sum', async () => {
    for (const start of [3, 29]) {
      const h = await ledgerHousehold({ baseCurrency: 'USD', timeZone: 'UTC' })
      h.ctx.now = now
      const checking = await account(h, 'cash')
      const savings = await account(h, 'cash')
      let seed = start
      const rand = (n: number) => {
        seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0
        // The high bits: an LCG's low bits repeat with a short period.
        return (seed >>> 12) % n
      }
      // 240 rows over 120 days: two a day on average, some days with several of each; pay now and
      // then, a little more than is spent, so money ages, and early outflows run below zero.
      const day = (n: number) => new Date(Date.UTC(2025, 8, 1 + n)).toISOString().slice(0, 10)
      for (let i = 0; i < 240; i++) {
        const date = day(rand(120))
        const kind = rand(8)
        if (kind === 0) await row(h, checking, date, 200_000 + rand(300_000))
        else if (kind === 1) await row(h, savings, date, 1 + rand(5_000))
        else await row(h, rand(2) ? checking : savings, date, -(1 + rand(20_000)))
      }
      // Exactly: the rows read give the series every row gives, to the fraction, with the same
      // outflows averaged at each point.
      const points = ['2025-09-30', '2025-10-31', '2025-11-30', '2025-12-31']
      const { rows: every } = await sql<{ id: string; date: string; amount: string }>`
        select t.id, t.date::text as date, t.amount_cents::text as amount from transactions t
        where t.household_id = ${h.ctx.householdId} and t.deleted_at is null and t.date <= '2025-12-31'
        order by t.date, t.id`.execute(h.store.db)
      const read = await ageOfMoneyFlows(h.store.db, h.ctx.householdId, points)
      expect(read.length).toBeLessThan(every.length * 0.8)
      const exact = (flows: CashFlow[]) =>
        ageOfMoneySeries(flows, points).map(
          (p) => p && { n: p.numerator, d: p.denominator, ids: p.outflows.map((o) => o.id) },
        )
      expect(exact(read)).toEqual(
        exact(every.map((r) => ({ id: r.id, date: r.date, amountCents: BigInt(r.amount) }))),
      )

      const report = await h.read(operations.reports.ageOfMoney, { fromMonth: '2025-09', toMonth: '2025-12' })
      for (const m of report.months) {
        const one = await h.read(operations.budgets.ageOfMoney, { asOf: m.asOf })
        expect(m.days, `${start} ${m.asOf}`).toBe(one.days)
      }
      expect(report.months.filter((m) => m.days !== null)).toHaveLength(4)
      expect(report.months.filter((m) => m.days! > 3).length).toBeGreaterThan(1)
    }
  })
})

describe('kept report months', () => {
  const range = { fromMonth: '2025-10', toMonth: '2026-04' }
  const kept = async (h: LedgerHousehold, report: string) =>
    (
      await sql<{ month: string }>`
        select month from report_closings where household_id = ${h.ctx.householdId} and report = ${report}
        order by month`.execute(h.store.db)
    ).rows.map((r) => r.month)
  /** Both reports as read with what is kept, against the same read with nothing kept. */
  const expectKeptToMatch = async (h: LedgerHousehold, step: string, ctx = {}) => {
    const read = async () => ({
      netWorth: await h.read(operations.reports.netWorth, range, ctx),
      cashFlow: await h.read(operations.reports.cashFlow, range, ctx),
      ageOfMoney: await h.read(operations.reports.ageOfMoney, range, ctx),
    })
    const withKept = await read()
    const keptNow = {
      netWorth: await kept(h, 'netWorth'),
      cashFlow: await kept(h, 'cashFlow'),
      ageOfMoney: await kept(h, 'ageOfMoney'),
    }
    await sql`delete from report_closings where household_id = ${h.ctx.householdId}`.execute(h.store.db)
    expect(withKept, step).toEqual(await read())
    return keptNow
  }

  it('keeps the months that are over and forgets them from the month a change reaches', async () => {
    const { h, checking, card, euros, food, fun } = await household()
    const savings = await account(h, 'cash', 'USD', 20_000)
    // Enough outflows for an age of money from December on.
    for (let d = 1; d <= 24; d++) await row(h, checking, `2025-12-${String(d).padStart(2, '0')}`, -1_000 - d)
    await row(h, savings, '2026-02-10', -2_500)

    let months = await expectKeptToMatch(h, 'first read')
    // March 15th is today: October to February are over, so kept; March and April are not.
    const over = ['2025-10', '2025-11', '2025-12', '2026-01', '2026-02']
    expect(months).toEqual({ netWorth: over, cashFlow: over, ageOfMoney: over })
    const first = await h.read(operations.reports.ageOfMoney, range)
    expect(first.months.filter((m) => m.days !== null).length).toBeGreaterThan(3)
    // Read again from what is kept: nothing read twice changes the answer.
    months = await expectKeptToMatch(h, 'second read')
    expect(months.netWorth).toEqual(over)

    // A new row in January forgets January on.
    await row(h, checking, '2026-01-15', -4_321)
    expect(await kept(h, 'netWorth')).toEqual(['2025-10', '2025-11', '2025-12'])
    expect(await kept(h, 'ageOfMoney')).toEqual(['2025-10', '2025-11', '2025-12'])
    await expectKeptToMatch(h, 'row added in January')

    // A new category or payee changes neither report: nothing is forgotten.
    const moved = await row(h, checking, '2026-02-03', -7_000, { categoryId: food })
    await expectKeptToMatch(h, 'row added in February')
    await h.read(operations.reports.ageOfMoney, range)
    await h.read(operations.reports.netWorth, range)
    await h.run(operations.transactions.update, { id: moved, categoryId: fun, payeeName: 'Elsewhere' })
    expect(await kept(h, 'ageOfMoney')).toEqual(over)
    // A date moved within February changes the order money is spent in: February is forgotten.
    await h.run(operations.transactions.update, { id: moved, date: '2026-02-27' })
    expect(await kept(h, 'ageOfMoney')).toEqual(over.slice(0, 4))
    await expectKeptToMatch(h, 'date moved within February')

    // A split row's parts change, not its amount: cash flow counts the parts.
    const split = await row(h, checking, '2026-02-06', -8_000, {
      splits: [
        { amountCents: -5_000, categoryId: food },
        { amountCents: -3_000, categoryId: fun },
      ],
    })
    await h.read(operations.reports.cashFlow, range)
    await h.run(operations.transactions.update, {
      id: split,
      splits: [
        { amountCents: -10_000, categoryId: food },
        { amountCents: 2_000, categoryId: fun },
      ],
    })
    expect(await kept(h, 'cashFlow')).toEqual(over.slice(0, 4))
    await expectKeptToMatch(h, 'split parts changed')

    // A transfer linked across months: its December leg stops counting as cash flow.
    const out = await row(h, checking, '2025-12-28', -30_000)
    await h.read(operations.reports.ageOfMoney, range)
    const back = await row(h, savings, '2026-02-12', 30_000)
    await h.read(operations.reports.ageOfMoney, range)
    await h.run(operations.transactions.linkTransfer, { id: back, counterpartId: out })
    expect(await kept(h, 'ageOfMoney')).toEqual(['2025-10', '2025-11'])
    await expectKeptToMatch(h, 'transfer linked')
    await h.run(operations.transactions.delete, { id: back })
    await expectKeptToMatch(h, 'one leg deleted')

    // Which accounts count: a card turned into a cash account, an account deleted.
    await h.read(operations.reports.ageOfMoney, range)
    await h.run(operations.accounts.convert, { id: card, type: 'cash' })
    expect(await kept(h, 'ageOfMoney')).toEqual([])
    await expectKeptToMatch(h, 'card converted')
    await h.run(operations.accounts.delete, { id: euros, force: true })
    await expectKeptToMatch(h, 'account deleted')
  })

  it('takes a month as over only when it is over for the reader', async () => {
    const { h, checking } = await household()
    for (let d = 1; d <= 24; d++) await row(h, checking, `2026-02-${String(d).padStart(2, '0')}`, -1_000 - d)
    await row(h, checking, '2026-02-28', -50_000)
    await expectKeptToMatch(h, 'kept in March')
    await h.read(operations.reports.ageOfMoney, range)
    expect(await kept(h, 'ageOfMoney')).toContain('2026-02')
    // A member whose today is still February 27th: February is this month, its point today.
    const earlier = { now: new Date('2026-02-27T12:00:00Z') }
    const report = await h.read(operations.reports.ageOfMoney, range, earlier)
    const february = report.months.find((m) => m.month === '2026-02')!
    expect(february.asOf).toBe('2026-02-27')
    expect(february.days).toBe((await h.read(operations.budgets.ageOfMoney, { asOf: '2026-02-27' })).days)
    await expectKeptToMatch(h, 'read on February 27th', earlier)
  })

  it('keeps nothing when a write came between the read and the keep', async () => {
    const { h, checking } = await household()
    const { version } = await readKeptMonths(h.store.db, h.ctx.householdId, 'netWorth', ['2025-11'])
    expect(version).not.toBeNull()
    const state = new Map([['2025-11', '[]']])
    await row(h, checking, '2026-01-02', -1_234)
    await keepMonths(h.store.db, h.ctx.householdId, 'netWorth', version, state)
    expect(await kept(h, 'netWorth')).toEqual([])
    const now = await readKeptMonths(h.store.db, h.ctx.householdId, 'netWorth', ['2025-11'])
    await keepMonths(h.store.db, h.ctx.householdId, 'netWorth', now.version, state)
    expect(await kept(h, 'netWorth')).toEqual(['2025-11'])
  })
})
