import { operations } from '@hearth/engine'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { outboxEvents } from '../ledger/test-fixture.ts'
import { budgetHousehold } from './test-fixture.ts'

describe('month snapshot', () => {
  it('counts income for Ready to Assign, and assigned money as available', async () => {
    const h = await budgetHousehold()
    const income = await h.group('Income', true)
    const salary = await h.category(income, 'Salary')
    const bills = await h.group('Bills')
    const rent = await h.category(bills, 'Rent')
    const food = await h.category(bills, 'Food')
    const checking = await h.account('cash')
    await h.spend(checking, salary, 300_000, '2024-01-03')
    await h.assign('2024-01', rent, 120_000)
    await h.assign('2024-01', food, 50_000)
    await h.spend(checking, food, -12_000, '2024-01-10')

    const jan = await h.month('2024-01')
    expect(jan).toMatchObject({
      month: '2024-01',
      incomeCents: '300000',
      assignedCents: '170000',
      readyToAssignCents: '130000',
      activityCents: '-12000',
      availableCents: '158000',
    })
    expect(h.cell(jan, food)).toMatchObject({
      assigned: 50_000,
      activity: -12_000,
      available: 38_000,
      state: 'funded',
    })
    expect(h.cell(jan, salary)).toMatchObject({ activity: 300_000, state: 'income' })
    const group = jan.groups.find((g) => g.id === bills)!
    expect(group).toMatchObject({
      assignedCents: '170000',
      activityCents: '-12000',
      availableCents: '158000',
    })
    // Ready to Assign plus every available equals the cash on budget.
    expect(Number(jan.readyToAssignCents) + Number(jan.availableCents)).toBe(300_000 - 12_000)
  })

  it('carries a positive available; cash overspending comes out of next month’s Ready to Assign', async () => {
    const h = await budgetHousehold()
    const g = await h.group('Everyday')
    const food = await h.category(g, 'Food')
    const fun = await h.category(g, 'Fun')
    const checking = await h.account('cash', 100_000, '2024-01-01')
    await h.assign('2024-01', food, 30_000)
    await h.assign('2024-01', fun, 10_000)
    await h.spend(checking, food, -20_000, '2024-01-05')
    await h.spend(checking, fun, -15_000, '2024-01-06')

    const jan = await h.month('2024-01')
    expect(jan.readyToAssignCents).toBe('60000')
    expect(h.cell(jan, fun)).toMatchObject({
      available: -5_000,
      cashOver: -5_000,
      creditOver: 0,
      state: 'overspent',
    })
    const feb = await h.month('2024-02')
    expect(h.cell(feb, food)).toMatchObject({ carriedIn: 10_000, available: 10_000 })
    expect(h.cell(feb, fun)).toMatchObject({ carriedIn: 0, available: 0, state: 'zero' })
    expect(feb).toMatchObject({
      readyToAssignCarriedInCents: '60000',
      overspentLastMonthCents: '5000',
      overspendingLastMonthCents: '-5000',
      readyToAssignCents: '55000',
    })
    expect(Number(feb.readyToAssignCents) + Number(feb.availableCents)).toBe(100_000 - 35_000)
  })

  it('keeps cash overspending in a category that carries it, instead of taking it from Ready to Assign', async () => {
    const h = await budgetHousehold()
    const g = await h.group('Everyday')
    const fun = await h.category(g, 'Fun')
    const checking = await h.account('cash', 100_000, '2024-01-01')
    await h.run(operations.budgets.assign, { month: '2024-01', categoryId: fun, carryOverspending: true })
    await h.spend(checking, fun, -15_000, '2024-01-06')
    const feb = await h.month('2024-02')
    expect(h.cell(feb, fun)).toMatchObject({ carriedIn: -15_000, available: -15_000, state: 'overspent' })
    expect(feb).toMatchObject({ overspentLastMonthCents: '0', readyToAssignCents: '100000' })
  })

  it('ignores transfers between on-budget accounts and counts a transfer off budget as an outflow', async () => {
    const h = await budgetHousehold()
    const checking = await h.account('cash', 100_000, '2024-01-01')
    const savings = await h.account('cash', 0, '2024-01-01')
    const mortgage = await h.account('loan', -500_000, '2024-01-01')
    await h.transfer(checking, savings, 40_000, '2024-01-10')
    await h.transfer(checking, mortgage, 10_000, '2024-01-11')
    const jan = await h.month('2024-01')
    expect(jan).toMatchObject({ uncategorizedCents: '90000', readyToAssignCents: '90000' })
  })

  it('moves covered card spending to the card’s payment category; the rest is credit overspending', async () => {
    const h = await budgetHousehold()
    const g = await h.group('Everyday')
    const food = await h.category(g, 'Food')
    const checking = await h.account('cash', 100_000, '2024-01-01')
    const visa = await h.account('credit')
    await h.assign('2024-01', food, 5_000)
    await h.spend(visa, food, -8_000, '2024-01-12')

    const jan = await h.month('2024-01')
    expect(h.cell(jan, food)).toMatchObject({
      activity: -8_000,
      available: -3_000,
      cashOver: 0,
      creditOver: -3_000,
    })
    expect(h.cell(jan, visa)).toMatchObject({ activity: 5_000, available: 5_000, state: 'funded' })
    expect(jan.readyToAssignCents).toBe('95000')
    // Cash 100,000 = RTA 95,000 + available (-3,000 food, 5,000 payment) - credit overspending (-3,000).
    expect(
      Number(jan.readyToAssignCents) + Number(jan.availableCents) - Number(jan.creditOverspendingCents),
    ).toBe(100_000)

    // Credit overspending becomes card debt: it does not reduce February's Ready to Assign.
    const feb = await h.month('2024-02')
    expect(h.cell(feb, food)).toMatchObject({ carriedIn: 0, available: 0 })
    expect(feb).toMatchObject({ overspentLastMonthCents: '0', readyToAssignCents: '95000' })

    // Paying the card spends from its payment category.
    await h.transfer(checking, visa, 5_000, '2024-02-03')
    const paid = await h.month('2024-02')
    expect(h.cell(paid, visa)).toMatchObject({ carriedIn: 5_000, activity: -5_000, available: 0 })
    expect(paid.readyToAssignCents).toBe('95000')
  })

  it('returns a card refund to its category and takes it from the card’s payment category', async () => {
    const h = await budgetHousehold()
    const g = await h.group('Everyday')
    const shoes = await h.category(g, 'Shoes')
    await h.account('cash', 50_000, '2024-01-01')
    const visa = await h.account('credit')
    await h.assign('2024-01', shoes, 10_000)
    await h.spend(visa, shoes, -10_000, '2024-01-03')
    await h.spend(visa, shoes, 4_000, '2024-01-20')
    const jan = await h.month('2024-01')
    // Net card activity -60.00 is covered in full: Shoes keeps 40.00, the payment category holds 60.00.
    expect(h.cell(jan, shoes)).toMatchObject({ activity: -6_000, available: 4_000, creditOver: 0 })
    expect(h.cell(jan, visa)).toMatchObject({ activity: 6_000, available: 6_000 })
    // A refund in a later month on its own: back to Shoes, out of the payment category.
    await h.spend(visa, shoes, 1_500, '2024-02-02')
    const feb = await h.month('2024-02')
    expect(h.cell(feb, shoes)).toMatchObject({ carriedIn: 4_000, activity: 1_500, available: 5_500 })
    expect(h.cell(feb, visa)).toMatchObject({ carriedIn: 6_000, activity: -1_500, available: 4_500 })
    expect(feb.readyToAssignCents).toBe('40000')
  })

  it('splits rows by their parts', async () => {
    const h = await budgetHousehold()
    const g = await h.group('Everyday')
    const food = await h.category(g, 'Food')
    const home = await h.category(g, 'Home')
    const checking = await h.account('cash', 10_000, '2024-01-01')
    await h.run(operations.transactions.create, {
      id: ulid(),
      accountId: checking,
      date: '2024-01-04',
      amountCents: -3_000,
      splits: [
        { amountCents: -1_000, categoryId: food },
        { amountCents: -2_000, categoryId: home },
      ],
    })
    const jan = await h.month('2024-01')
    expect(h.cell(jan, food).activity).toBe(-1_000)
    expect(h.cell(jan, home).activity).toBe(-2_000)
    expect(jan).toMatchObject({ uncategorizedCents: '10000', readyToAssignCents: '10000' })
  })
})

describe('assign, move, copy, reset and history', () => {
  it('moves money atomically with history on both sides, newest first', async () => {
    const h = await budgetHousehold()
    const g = await h.group('Everyday')
    const food = await h.category(g, 'Food')
    const fun = await h.category(g, 'Fun')
    await h.assign('2024-03', food, 10_000)
    await h.move('2024-03', food, fun, 2_500)
    const snap = await h.month('2024-03')
    expect(h.cell(snap, food).assigned).toBe(7_500)
    expect(h.cell(snap, fun).assigned).toBe(2_500)
    const history = await h.read(operations.budgets.history, { month: '2024-03', categoryId: food })
    expect(
      history.items.map((e) => [e.kind, e.previousCents, e.assignedCents, e.counterpartCategoryId]),
    ).toEqual([
      ['move', '10000', '7500', fun],
      ['assign', '0', '10000', null],
    ])
    const other = await h.read(operations.budgets.history, { month: '2024-03', categoryId: fun })
    expect(other.items.map((e) => [e.kind, e.deltaCents, e.counterpartCategoryId])).toEqual([
      ['move', '2500', food],
    ])
  })

  it('copies a month over another, and an owner resets one', async () => {
    const h = await budgetHousehold()
    const g = await h.group('Everyday')
    const food = await h.category(g, 'Food')
    const fun = await h.category(g, 'Fun')
    await h.assign('2024-03', food, 10_000)
    await h.assign('2024-04', fun, 3_000)
    const copied = await h.run(operations.budgets.copyFrom, {
      month: '2024-04',
      sourceMonth: '2024-03',
      historyId: ulid(),
    })
    expect(copied.changed).toBe(2)
    const apr = await h.month('2024-04')
    expect([h.cell(apr, food).assigned, h.cell(apr, fun).assigned]).toEqual([10_000, 0])
    await expect(
      h.run(operations.budgets.reset, { month: '2024-04', historyId: ulid() }, { role: 'member' }),
    ).rejects.toMatchObject({ status: 403, code: 'OWNER_ONLY' })
    await h.run(operations.budgets.reset, { month: '2024-04', historyId: ulid() })
    expect((await h.month('2024-04')).assignedCents).toBe('0')
  })

  it('refuses a history id already used, and changes nothing', async () => {
    const h = await budgetHousehold()
    const food = await h.category(await h.group('Everyday'), 'Food')
    const historyId = ulid()
    await h.run(operations.budgets.assign, {
      month: '2024-02',
      categoryId: food,
      assignedCents: 100,
      historyId,
    })
    await expect(
      h.run(operations.budgets.assign, { month: '2024-02', categoryId: food, assignedCents: 200, historyId }),
    ).rejects.toMatchObject({ status: 409, code: 'ID_ALREADY_EXISTS' })
    expect(h.cell(await h.month('2024-02'), food).assigned).toBe(100)
  })

  it('refuses income categories and unknown ones', async () => {
    const h = await budgetHousehold()
    const salary = await h.category(await h.group('Income', true), 'Salary')
    await expect(h.assign('2024-01', salary, 100)).rejects.toMatchObject({
      status: 400,
      code: 'BUDGET_INCOME_CATEGORY',
    })
    await expect(h.assign('2024-01', ulid(), 100)).rejects.toMatchObject({ status: 404 })
  })
})

describe('goals', () => {
  it('shows goal progress and state, and auto-assign raises goals until Ready to Assign is spent', async () => {
    const h = await budgetHousehold()
    const g = await h.group('Bills')
    const rent = await h.category(g, 'Rent')
    const car = await h.category(g, 'Car')
    const fun = await h.category(g, 'Fun')
    await h.run(operations.categories.update, { id: rent, goal: { type: 'monthly', amountCents: 100_000 } })
    await h.run(operations.categories.update, {
      id: car,
      goal: { type: 'targetBalanceByDate', targetCents: 60_000, targetDate: '2024-06-30' },
    })
    const checking = await h.account('cash', 130_000, '2024-01-01')
    await h.assign('2024-01', rent, 40_000)

    const before = await h.month('2024-01')
    const rentBefore = before.groups.flatMap((x) => x.categories).find((c) => c.id === rent)!
    expect(rentBefore).toMatchObject({
      state: 'underfunded',
      goal: {
        type: 'monthly',
        suggestedCents: '100000',
        underfundedCents: '60000',
        progressBasisPoints: 4000,
      },
    })
    const carBefore = before.groups.flatMap((x) => x.categories).find((c) => c.id === car)!
    // 600.00 over January to June: 100.00 a month.
    expect(carBefore.goal).toMatchObject({ suggestedCents: '10000', dueDate: '2024-06-30', monthsLeft: 6 })
    // The month's own total: Rent still wants 600.00, Car 100.00.
    expect(before.underfundedCents).toBe('70000')
    expect(h.cell(before, fun).state).toBe('zero')

    await h.spend(checking, fun, -1_000, '2024-01-09')
    const result = await h.run(operations.budgets.autoAssignFromGoals, {
      month: '2024-01',
      historyId: ulid(),
    })
    // Ready to Assign 90,000: rent is due first (end of January) and gets its 60,000, car its 10,000.
    expect(result).toEqual({
      month: '2024-01',
      assigned: [
        { categoryId: rent, previousCents: '40000', assignedCents: '100000' },
        { categoryId: car, previousCents: '0', assignedCents: '10000' },
      ],
      readyToAssignCents: '20000',
    })
    const after = await h.month('2024-01')
    expect(after.readyToAssignCents).toBe('20000')
    expect(h.cell(after, rent)).toMatchObject({ assigned: 100_000, state: 'funded' })
    const history = await h.read(operations.budgets.history, { month: '2024-01', categoryId: rent })
    expect(history.items[0]).toMatchObject({
      kind: 'auto_assign',
      previousCents: '40000',
      assignedCents: '100000',
    })
  })
})

describe('budget.overrun', () => {
  it('is emitted once per category and month when available drops below zero, and again only after it recovered', async () => {
    const h = await budgetHousehold()
    const g = await h.group('Everyday')
    const food = await h.category(g, 'Food')
    const checking = await h.account('cash', 100_000, '2024-01-01')
    await h.assign('2024-01', food, 5_000)
    const overruns = async () =>
      (await outboxEvents(h)).filter((e) => e.type === 'budget.overrun').map((e) => e.data)
    await h.spend(checking, food, -4_000, '2024-01-05')
    expect(await overruns()).toEqual([])
    await h.spend(checking, food, -2_000, '2024-01-06')
    expect(await overruns()).toEqual([
      { householdId: h.ctx.householdId, month: '2024-01', categoryId: food, availableCents: '-1000' },
    ])
    await h.spend(checking, food, -500, '2024-01-07')
    expect(await overruns()).toHaveLength(1)
    // Assigning more recovers it; the next overspending is announced again.
    await h.assign('2024-01', food, 10_000)
    await h.spend(checking, food, -4_000, '2024-01-08')
    expect((await overruns()).map((e) => e.availableCents)).toEqual(['-1000', '-500'])
    // A move out of a category can overrun it too.
    const fun = await h.category(g, 'Fun')
    await h.assign('2024-01', food, 11_000)
    await h.move('2024-01', food, fun, 2_000)
    expect((await overruns()).map((e) => e.availableCents)).toEqual(['-1000', '-500', '-1500'])
  })
})
