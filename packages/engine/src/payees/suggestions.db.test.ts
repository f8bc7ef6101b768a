import { operations } from '@hearth/engine'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import {
  type LedgerHousehold,
  ledgerHousehold,
  newAccount,
  newCategory,
  newPayee,
  newTransaction,
} from '../ledger/test-fixture.ts'
import { MIN_TRAINING_ROWS } from './suggestion-step.ts'

/** A household whose Bakery rows are Food and whose Cinema rows are Fun, `n` of each. */
async function trained(n = 4) {
  const h = await ledgerHousehold()
  const account = await newAccount(h)
  const food = await newCategory(h, 'Food')
  const fun = await newCategory(h, 'Fun')
  const bakery = await newPayee(h, 'Bakery')
  const cinema = await newPayee(h, 'Cinema')
  // The history arrives as an import: categorized rows the model trains on (an import teaches no rule).
  const history = []
  for (let i = 0; i < n; i++) {
    const common = { accountId: account.id, date: '2024-03-10' }
    history.push({
      ...common,
      id: ulid(),
      payeeId: bakery,
      categoryId: food,
      memo: 'bread rolls',
      amountCents: -450,
    })
    history.push({
      ...common,
      id: ulid(),
      payeeId: cinema,
      categoryId: fun,
      memo: 'movie night',
      amountCents: -1800,
    })
  }
  await h.run(operations.transactions.bulkCreate, { transactions: history })
  return { h, account: account.id, food, fun, bakery, cinema }
}

const uncategorized = (h: LedgerHousehold, accountId: string, args: Record<string, unknown>) =>
  newTransaction(h, accountId, { amountCents: -500, ...args })

describe('category suggestions', () => {
  it('suggests the category a payee’s rows have, with a confidence and a reason', async () => {
    const { h, account, food, fun, bakery } = await trained()
    const row = await uncategorized(h, account, { payeeId: bakery })
    expect(row).toMatchObject({
      categoryId: null,
      suggestedCategoryId: food,
      suggestionReason: expect.stringContaining('8 categorized rows'),
    })
    expect(row.suggestionConfidence).toBeGreaterThan(0.9)
    expect(row.suggestionConfidence).toBeLessThanOrEqual(1)
    // A new payee with a telling memo: memo words decide.
    const byMemo = await uncategorized(h, account, {
      payeeName: 'Odeon',
      memo: 'Movie with friends',
      amountCents: -1900,
    })
    expect(byMemo.suggestedCategoryId).toBe(fun)
  })

  it('says nothing below five categorized rows, nor on a row the request categorized or split', async () => {
    const { h, account, food, bakery } = await trained(2)
    expect(MIN_TRAINING_ROWS).toBe(5)
    expect((await uncategorized(h, account, { payeeId: bakery })).suggestedCategoryId).toBeNull()
    // One more imported row (a hand-made third one would teach a rule, which then categorizes).
    await h.run(operations.transactions.bulkCreate, {
      transactions: [
        {
          id: ulid(),
          accountId: account,
          date: '2024-03-10',
          amountCents: -450,
          payeeId: bakery,
          categoryId: food,
        },
      ],
    })
    const fifth = await uncategorized(h, account, { payeeId: bakery })
    expect(fifth.suggestedCategoryId).toBe(food)
    const set = await newTransaction(h, account, { payeeId: bakery, categoryId: food })
    expect(set.suggestedCategoryId).toBeNull()
    const split = await newTransaction(h, account, {
      payeeId: bakery,
      amountCents: -1000,
      splits: [
        { amountCents: -600, categoryId: food },
        { amountCents: -400, categoryId: food },
      ],
    })
    expect(split.suggestedCategoryId).toBeNull()
  })

  it('suggests on a bulk import too', async () => {
    const { h, account, food, fun, bakery, cinema } = await trained()
    const { items } = await h.run(operations.transactions.bulkCreate, {
      transactions: [
        {
          id: ulid(),
          accountId: account,
          date: '2024-04-01',
          amountCents: -400,
          payeeId: bakery,
          importedId: 'i1',
        },
        {
          id: ulid(),
          accountId: account,
          date: '2024-04-02',
          amountCents: -1700,
          payeeId: cinema,
          importedId: 'i2',
        },
      ],
    })
    expect(items.map((t) => t.suggestedCategoryId)).toEqual([food, fun])
  })

  it('never suggests a rejected category for that payee again, and an accepted row teaches the model', async () => {
    const { h, account, food, fun, bakery } = await trained()
    const first = await uncategorized(h, account, { payeeId: bakery })
    expect(first.suggestedCategoryId).toBe(food)
    await h.run(operations.transactions.rejectSuggestion, { id: first.id })
    expect((await h.read(operations.payees.rejectedCategories, { id: bakery })).items).toEqual([
      { categoryId: food, createdAt: expect.any(String) },
    ])
    const second = await uncategorized(h, account, { payeeId: bakery })
    // Food is out for Bakery; Fun is far too unlikely to be offered.
    expect(second.suggestedCategoryId).not.toBe(food)
    expect([null, fun]).toContain(second.suggestedCategoryId)
    const cinemaRow = await uncategorized(h, account, { payeeName: 'Cinema' })
    expect(cinemaRow.suggestedCategoryId).toBe(fun)
    const accepted = await h.run(operations.transactions.acceptSuggestion, { id: cinemaRow.id })
    expect(accepted).toMatchObject({ categoryId: fun, suggestedCategoryId: null })
    const count = await h.store.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('household_id', '=', h.ctx.householdId)
      .where('category_id', '=', fun)
      .executeTakeFirstOrThrow()
    expect(Number(count.n)).toBe(5)
  })

  it('never proposes an income category for money going out, nor a spending category for money coming in', async () => {
    const { h, account, food } = await trained()
    const incomeGroup = ulid()
    const salary = ulid()
    await h.run(operations.categoryGroups.create, { id: incomeGroup, name: 'Income', isIncome: true })
    await h.run(operations.categories.create, { id: salary, groupId: incomeGroup, name: 'Salary' })
    const employer = await newPayee(h, 'Acme Payroll')
    const pay = Array.from({ length: 12 }, () => ({
      id: ulid(),
      accountId: account,
      date: '2024-03-25',
      payeeId: employer,
      categoryId: salary,
      memo: 'salary',
      amountCents: 250_000,
    }))
    await h.run(operations.transactions.bulkCreate, { transactions: pay })
    // Salary rows now outnumber every other category: a new payee's outflow once drew "Salary".
    const outflow = await uncategorized(h, account, { payeeName: 'Corner Kiosk', amountCents: -1200 })
    expect(outflow.suggestedCategoryId).not.toBe(salary)
    const fromEmployer = await uncategorized(h, account, {
      payeeId: employer,
      memo: 'salary',
      amountCents: -300,
    })
    expect(fromEmployer.suggestedCategoryId).not.toBe(salary)
    const inflow = await uncategorized(h, account, { payeeName: 'Acme Payroll', amountCents: 250_000 })
    expect(inflow.suggestedCategoryId).toBe(salary)
    const refund = await uncategorized(h, account, { payeeName: 'Bakery', amountCents: 450 })
    expect([null, salary]).toContain(refund.suggestedCategoryId)
    expect(refund.suggestedCategoryId).not.toBe(food)
  })
})
