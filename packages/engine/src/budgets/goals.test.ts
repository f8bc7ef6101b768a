import { describe, expect, it } from 'vitest'
import type { CategoryGoal } from '../catalog/category-goal.ts'
import { basisPoints, type GoalMonthInput, goalForMonth, nextDueDate, setAsideShare } from './goals.ts'
import { addMonths } from './month.ts'

function month(m: string, start: number, assigned: number, activity = 0): GoalMonthInput {
  return {
    month: m,
    startAvailableCents: BigInt(start),
    assignedCents: BigInt(assigned),
    activityCents: BigInt(activity),
  }
}

describe('monthly funding', () => {
  const goal: CategoryGoal = { type: 'monthly', amountCents: '30000' }

  it('asks for the amount every month, whatever the category already holds', () => {
    const march = goalForMonth(goal, month('2026-03', 120_000, 10_000, -5_000))
    expect(march).toEqual({
      suggestedCents: 30_000n,
      underfundedCents: 20_000n,
      neededCents: 30_000n,
      fundedCents: 10_000n,
      progressBasisPoints: 3333,
      dueDate: '2026-03-31',
      monthsLeft: 1,
    })
  })

  it('is met once the amount is assigned, and more does not go past 100 %', () => {
    const g = goalForMonth(goal, month('2026-02', 0, 45_000))
    expect(g.underfundedCents).toBe(0n)
    expect(g.progressBasisPoints).toBe(10_000)
    expect(g.dueDate).toBe('2026-02-28')
  })
})

describe('target balance without a date', () => {
  const goal: CategoryGoal = { type: 'targetBalance', targetCents: '100000' }

  it('asks for everything still missing from the balance this month', () => {
    // $1,000 emergency fund holding $400: assign $600.
    const g = goalForMonth(goal, month('2026-05', 40_000, 0))
    expect(g.suggestedCents).toBe(60_000n)
    expect(g.underfundedCents).toBe(60_000n)
    expect(g.progressBasisPoints).toBe(4000)
    expect(g.dueDate).toBeNull()
    expect(g.monthsLeft).toBeNull()
  })

  it('counts spending from the category against the balance', () => {
    const g = goalForMonth(goal, month('2026-05', 40_000, 10_000, -20_000))
    expect(g.suggestedCents).toBe(80_000n)
    expect(g.underfundedCents).toBe(70_000n)
    expect(g.fundedCents).toBe(30_000n)
  })

  it('asks nothing once the balance is reached', () => {
    const g = goalForMonth(goal, month('2026-05', 150_000, 0))
    expect(g.suggestedCents).toBe(0n)
    expect(g.progressBasisPoints).toBe(10_000)
  })
})

describe('target balance by a date', () => {
  it('spreads $1,200 by December over twelve months from January: $100 a month', () => {
    const goal: CategoryGoal = {
      type: 'targetBalanceByDate',
      targetCents: '120000',
      targetDate: '2026-12-31',
    }
    const jan = goalForMonth(goal, month('2026-01', 0, 0))
    expect(jan.suggestedCents).toBe(10_000n)
    expect(jan.monthsLeft).toBe(12)
    expect(jan.dueDate).toBe('2026-12-31')
    const feb = goalForMonth(goal, month('2026-02', 10_000, 10_000))
    expect(feb.suggestedCents).toBe(10_000n)
    expect(feb.underfundedCents).toBe(0n)
    expect(feb.progressBasisPoints).toBe(1666)
  })

  it('rounds up to the cent, and the shares reach the target exactly on time', () => {
    // $1,000 by a day in March, starting in January: 333.34, 333.33, 333.33.
    const goal: CategoryGoal = {
      type: 'targetBalanceByDate',
      targetCents: '100000',
      targetDate: '2026-03-10',
    }
    let start = 0n
    const shares: bigint[] = []
    for (const m of ['2026-01', '2026-02', '2026-03']) {
      const g = goalForMonth(goal, {
        month: m,
        startAvailableCents: start,
        assignedCents: 0n,
        activityCents: 0n,
      })
      shares.push(g.suggestedCents)
      start += g.suggestedCents
    }
    expect(shares).toEqual([33_334n, 33_333n, 33_333n])
    expect(start).toBe(100_000n)
  })

  it('catches up after a skipped month and asks for the rest once the date has passed', () => {
    const goal: CategoryGoal = { type: 'targetBalanceByDate', targetCents: '60000', targetDate: '2026-06-30' }
    // Nothing in January or February: from March, $600 over 4 months.
    expect(goalForMonth(goal, month('2026-03', 0, 0)).suggestedCents).toBe(15_000n)
    // July, $100 short: all of it now.
    const late = goalForMonth(goal, month('2026-07', 50_000, 0))
    expect(late.suggestedCents).toBe(10_000n)
    expect(late.monthsLeft).toBe(1)
  })
})

describe('needed for spending', () => {
  it('refills a monthly $500 grocery goal up to the amount, spending this month aside', () => {
    const goal: CategoryGoal = {
      type: 'neededForSpending',
      amountCents: '50000',
      everyMonths: 1,
      dueDate: '2026-01-31',
      fill: 'refill',
    }
    // $120 left over from last month: assign $380; spending $450 this month changes nothing.
    const g = goalForMonth(goal, month('2026-04', 12_000, 38_000, -45_000))
    expect(g.suggestedCents).toBe(38_000n)
    expect(g.underfundedCents).toBe(0n)
    expect(g.fundedCents).toBe(50_000n)
    expect(g.progressBasisPoints).toBe(10_000)
    expect(g.dueDate).toBe('2026-04-30')
  })

  it('sets aside another full amount each month whatever is left over', () => {
    const goal: CategoryGoal = {
      type: 'neededForSpending',
      amountCents: '50000',
      everyMonths: 1,
      dueDate: '2026-01-15',
      fill: 'setAside',
    }
    const g = goalForMonth(goal, month('2026-04', 12_000, 0))
    expect(g.suggestedCents).toBe(50_000n)
    expect(g.dueDate).toBe('2026-04-15')
  })

  it('spreads a yearly $1,200 insurance premium due in December over the months left', () => {
    const goal: CategoryGoal = {
      type: 'neededForSpending',
      amountCents: '120000',
      everyMonths: 12,
      dueDate: '2026-12-01',
      fill: 'refill',
    }
    expect(goalForMonth(goal, month('2026-01', 0, 0)).suggestedCents).toBe(10_000n)
    // Starting in September with nothing: 4 months left, $300 a month.
    const sep = goalForMonth(goal, month('2026-09', 0, 0))
    expect(sep.suggestedCents).toBe(30_000n)
    expect(sep.monthsLeft).toBe(4)
    // After the premium is paid the next cycle runs to December 2027.
    const next = goalForMonth(goal, month('2027-01', 0, 0))
    expect(next.dueDate).toBe('2027-12-01')
    expect(next.suggestedCents).toBe(10_000n)
  })

  it('splits a set-aside amount over its cycle so the shares add up exactly', () => {
    const goal: CategoryGoal = {
      type: 'neededForSpending',
      amountCents: '100000',
      everyMonths: 3,
      dueDate: '2026-03-20',
      fill: 'setAside',
    }
    const shares = ['2026-04', '2026-05', '2026-06'].map(
      (m) => goalForMonth(goal, month(m, 99_999, 0)).suggestedCents,
    )
    expect(shares).toEqual([33_334n, 33_333n, 33_333n])
    // Before the first cycle begins nothing is asked.
    const early = goalForMonth({ ...goal, dueDate: '2026-12-20' }, month('2026-01', 0, 0))
    expect(early.suggestedCents).toBe(0n)
    expect(early.monthsLeft).toBe(12)
  })

  it('keeps the due day, or the last day of a shorter month', () => {
    expect(nextDueDate('2026-01-31', 1, '2026-02')).toBe('2026-02-28')
    expect(nextDueDate('2026-01-31', 1, '2026-03')).toBe('2026-03-31')
    expect(nextDueDate('2024-02-29', 12, '2025-01')).toBe('2025-02-28')
    expect(nextDueDate('2026-06-15', 2, '2026-01')).toBe('2026-06-15')
    expect(nextDueDate('2026-06-15', 2, '2026-07')).toBe('2026-08-15')
  })
})

describe('goal arithmetic', () => {
  it('floors basis points and clamps them to 0..10000', () => {
    expect(basisPoints(1n, 3n)).toBe(3333)
    expect(basisPoints(-5n, 100n)).toBe(0)
    expect(basisPoints(5n, 0n)).toBe(10_000)
    expect(basisPoints(2n, 1n)).toBe(10_000)
  })

  it('adds months across years', () => {
    expect(addMonths('2026-11', 3)).toBe('2027-02')
    expect(addMonths('2026-01', -1)).toBe('2025-12')
  })

  it('set-aside shares always add up to the amount', () => {
    for (const amount of [1n, 2n, 99n, 100_000n, 123_456_789n, 10n ** 15n + 7n]) {
      for (let n = 1; n <= 120; n++) {
        let sum = 0n
        for (let left = n; left >= 1; left--) sum += setAsideShare(amount, n, left)
        expect(sum).toBe(amount)
      }
    }
  })

  it('a by-date goal assigned as suggested reaches its target in the due month exactly', () => {
    for (const target of [1n, 7n, 100_000n, 99_999_999_999n]) {
      for (const initial of [-50_000n, 0n, 3n, target - 1n, target + 5n]) {
        for (let ahead = 0; ahead <= 36; ahead += 5) {
          const targetDate = `${addMonths('2026-01', ahead)}-15`
          const goal: CategoryGoal = { type: 'targetBalanceByDate', targetCents: String(target), targetDate }
          let start = initial
          for (let i = 0; i <= ahead; i++) {
            const g = goalForMonth(goal, {
              month: addMonths('2026-01', i),
              startAvailableCents: start,
              assignedCents: 0n,
              activityCents: 0n,
            })
            expect(g.suggestedCents >= 0n).toBe(true)
            start += g.suggestedCents
          }
          expect(start).toBe(initial < target ? target : initial)
        }
      }
    }
  })
})
