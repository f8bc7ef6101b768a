import { operations } from '@hearth/engine'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { keepClosings } from './closings.ts'
import { loadBudget } from './flows.ts'
import { budgetMonth, type MonthClosing } from './model.ts'
import { type BudgetHousehold, budgetHousehold } from './test-fixture.ts'

async function household(): Promise<{ h: BudgetHousehold; food: string; checking: string; visa: string }> {
  const h = await budgetHousehold()
  const salary = await h.category(await h.group('Income', true), 'Salary')
  const food = await h.category(await h.group('Everyday'), 'Food')
  const checking = await h.account('cash')
  const visa = await h.account('credit')
  await h.spend(checking, salary, 300_000, '2024-01-02')
  for (const m of ['2024-01', '2024-02', '2024-03', '2024-04']) {
    await h.assign(m, food, 40_000)
    await h.spend(checking, food, -30_000, `${m}-10`)
  }
  return { h, food, checking, visa }
}

async function kept(h: BudgetHousehold): Promise<string[]> {
  const { rows } = await sql<{ month: string }>`
    select month from budget_closings where household_id = ${h.ctx.householdId} order by month`.execute(
    h.store.db,
  )
  return rows.map((r) => r.month)
}

async function forget(h: BudgetHousehold): Promise<void> {
  await sql`delete from budget_closings where household_id = ${h.ctx.householdId}`.execute(h.store.db)
}

/**
 * Reads a month until the reader kept its closings. A reader that meets a change to its household
 * keeps nothing, by design; on PostgreSQL another test file's server shares the database, and its
 * workers write into every household (a notification of a large transaction, for one).
 */
async function readUntilKept(h: BudgetHousehold, month: string, count: number): Promise<string[]> {
  for (let attempt = 0; attempt < 10; attempt++) {
    await h.month(month)
    const months = await kept(h)
    if (months.length === count) return months
  }
  return kept(h)
}

describe('kept month closings', () => {
  it('are kept by a reader for the months before the one it read, and forgotten from the month a write reaches', async () => {
    const { h, food, checking, visa } = await household()
    const april = await h.month('2024-04')
    expect(await readUntilKept(h, '2024-04', 3)).toEqual(['2024-01', '2024-02', '2024-03'])
    expect(h.cell(april, food)).toMatchObject({ carriedIn: 30_000, available: 40_000 })

    // A row in February forgets February on; January stays.
    await h.spend(checking, food, -5_000, '2024-02-20')
    expect(await kept(h)).toEqual(['2024-01'])
    expect(h.cell(await h.month('2024-04'), food)).toMatchObject({ carriedIn: 25_000, available: 35_000 })
    expect(await readUntilKept(h, '2024-04', 3)).toEqual(['2024-01', '2024-02', '2024-03'])

    // An assignment in March forgets March on.
    await h.assign('2024-03', food, 45_000)
    expect(await kept(h)).toEqual(['2024-01', '2024-02'])
    await h.month('2024-04')

    // A transfer leg (read from the ledger, not the kept sums) forgets from its month.
    await h.transfer(checking, visa, 1_000, '2024-03-05')
    expect(await kept(h)).toEqual(['2024-01', '2024-02'])
    await h.month('2024-04')

    // What every month is computed with: a new category, a carry setting, a card. All forgotten.
    await h.category(await h.group('More'), 'Fun')
    expect(await kept(h)).toEqual([])
    expect(await readUntilKept(h, '2024-04', 3)).toHaveLength(3)
    await h.account('credit')
    expect(await kept(h)).toEqual([])
    expect(await readUntilKept(h, '2024-04', 3)).toHaveLength(3)

    // A name or a balance changes no closing.
    await h.run(operations.categories.update, { id: food, name: 'Groceries' })
    expect(await kept(h)).toHaveLength(3)

    // Whatever was kept, each month answers as a roll from its first month.
    const cached = await h.month('2024-04')
    await forget(h)
    expect(await h.month('2024-04')).toEqual(cached)
  })

  it('are not kept when the household changed after the reader read it', async () => {
    const { h, checking, food } = await household()
    const loaded = await loadBudget(h.store.db, h.ctx.householdId, '2024-04')
    const closings = new Map<string, MonthClosing>()
    budgetMonth(loaded.flows, '2024-04', closings)
    expect([...closings.keys()]).toEqual(['2024-01', '2024-02', '2024-03'])

    // A write commits between the read and the keep: nothing it computed may be kept.
    await h.spend(checking, food, -7_000, '2024-01-15')
    await keepClosings(h.store.db, h.ctx.householdId, loaded.version, closings)
    expect(await kept(h)).toEqual([])
  })

  it('wait for a write in flight and then are not kept', async () => {
    const { h } = await household()
    const loaded = await loadBudget(h.store.db, h.ctx.householdId, '2024-04')
    const closings = new Map<string, MonthClosing>()
    budgetMonth(loaded.flows, '2024-04', closings)

    // A write holds the household's clock row from its first statement to its commit.
    let keeping: Promise<void> | undefined
    await h.store.db.transaction().execute(async (tx) => {
      await sql`update household_clock set version = version + 1 where household_id = ${h.ctx.householdId}`.execute(
        tx,
      )
      keeping = keepClosings(h.store.db, h.ctx.householdId, loaded.version, closings)
      // On PostgreSQL the keep waits on the clock row; on PGlite, for the one connection.
      await new Promise((resolve) => setTimeout(resolve, 50))
    })
    await keeping
    expect(await kept(h)).toEqual([])
  })
})
