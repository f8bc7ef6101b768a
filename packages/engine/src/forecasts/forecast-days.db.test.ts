import { operations } from '@hearth/engine'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { budgetHousehold } from '../budgets/test-fixture.ts'
import type { LedgerHousehold } from '../ledger/test-fixture.ts'
import { forecastMonth } from './forecast.ts'

/**
 * The kept daily sums beside the same sums taken from the ledger's rows the way forecasts read
 * them before migration 0030 (a split row counts its parts, a part without a category counts in
 * its row's), keyed day|account|category|recurring, zero sums left out.
 */
async function keptAndRecomputed(h: LedgerHousehold) {
  const hh = h.ctx.householdId
  const kept = await sql<{ key: string; cents: string }>`
    select date::text || '|' || account_id || '|' || category_id || '|' || recurring::text as key,
      spent_cents::text as cents
    from forecast_days where household_id = ${hh} and spent_cents <> 0 order by 1`.execute(h.store.db)
  const ledger = await sql<{ key: string; cents: string }>`
    select t.date::text || '|' || t.account_id || '|' || coalesce(s.category_id, t.category_id, '') || '|'
        || (t.source = 'recurring')::text as key,
      sum(-coalesce(s.amount_cents, t.amount_cents))::text as cents
    from transactions t
    left join transaction_splits s on s.household_id = t.household_id and s.transaction_id = t.id
    where t.household_id = ${hh} and t.deleted_at is null and t.merged_into_id is null
      and t.kind = 'normal' and t.transfer_group_id is null
    group by 1 having sum(-coalesce(s.amount_cents, t.amount_cents)) <> 0 order by 1`.execute(h.store.db)
  return { kept: kept.rows, ledger: ledger.rows }
}

async function expectKeptExact(h: LedgerHousehold): Promise<void> {
  const { kept, ledger } = await keptAndRecomputed(h)
  expect(kept).toEqual(ledger)
}

describe('the daily spending sums forecasts read', () => {
  it('follow creates, edits, back-dated moves, splits, soft deletes, transfers and bulk writes', async () => {
    const h = await budgetHousehold()
    const group = await h.group('Everyday')
    const food = await h.category(group, 'Food')
    const fun = await h.category(group, 'Fun')
    const checking = await h.account('cash')
    const visa = await h.account('credit')
    const loan = await h.account('loan')

    const a = await h.spend(checking, food, -4_000, '2025-03-03')
    const b = await h.spend(visa, fun, -2_500, '2025-03-03')
    const refund = await h.spend(checking, food, 700, '2025-03-04')
    const uncategorized = await h.spend(checking, null, -1_200, '2025-03-05')
    await expectKeptExact(h)
    expect((await keptAndRecomputed(h)).kept).toHaveLength(4)

    // Edits: amount, category, a date moved back a month, another account.
    await h.run(operations.transactions.update, { id: a, amountCents: -4_400 })
    await h.run(operations.transactions.update, { id: b, categoryId: food })
    await h.run(operations.transactions.update, { id: refund, date: '2025-02-11' })
    await h.run(operations.transactions.update, { id: uncategorized, accountId: visa, categoryId: fun })
    await expectKeptExact(h)

    // A split row (which has no category of its own) counts its parts, an uncategorized part uncategorized.
    const split = ulid()
    await h.run(operations.transactions.create, {
      id: split,
      accountId: checking,
      date: '2025-03-06',
      amountCents: -3_000,
      splits: [
        { amountCents: -1_000, categoryId: food },
        { amountCents: -2_000, categoryId: null },
      ],
    })
    await expectKeptExact(h)
    await h.run(operations.transactions.update, {
      id: split,
      splits: [
        { amountCents: -2_500, categoryId: food },
        { amountCents: -500, categoryId: fun },
      ],
    })
    await h.run(operations.transactions.update, { id: split, date: '2025-01-30' })
    await expectKeptExact(h)

    // Transfers count nothing, here or at either end.
    await h.transfer(checking, visa, 10_000, '2025-03-07')
    await h.transfer(checking, loan, 20_000, '2025-03-08')
    await expectKeptExact(h)

    // Soft deletes take the row's sums away; a row on a loan account is kept (a forecast skips it when read).
    await h.run(operations.transactions.delete, { id: b })
    await h.run(operations.transactions.delete, { id: split })
    await h.spend(loan, food, -900, '2025-03-09')
    await expectKeptExact(h)

    // Many rows in one statement add up per day, account and category.
    await h.run(operations.transactions.bulkCreate, {
      transactions: Array.from({ length: 30 }, (_, i) => ({
        id: ulid(),
        accountId: i % 2 ? checking : visa,
        date: `2025-03-${String(10 + (i % 5)).padStart(2, '0')}`,
        amountCents: -(100 + i),
        categoryId: i % 3 ? food : null,
      })),
    })
    await expectKeptExact(h)

    // A row a recurrence booked is kept apart (forecast history leaves it out), and hard deletes count too.
    await sql`update transactions set source = 'recurring' where household_id = ${h.ctx.householdId} and id = ${a}`.execute(
      h.store.db,
    )
    await expectKeptExact(h)
    await sql`delete from transactions where household_id = ${h.ctx.householdId} and id = ${refund}`.execute(
      h.store.db,
    )
    await expectKeptExact(h)
  })

  it('give the forecast the same answer as reading the ledger, also for a month with a loan account', async () => {
    const h = await budgetHousehold()
    const group = await h.group('Everyday')
    const food = await h.category(group, 'Food')
    const checking = await h.account('cash')
    const loan = await h.account('loan')
    for (const [m, cents] of [
      ['2025-01', 30_000],
      ['2025-02', 36_000],
      ['2025-03', 33_000],
    ] as const) {
      await h.spend(checking, food, -cents / 3, `${m}-05`)
      await h.spend(checking, food, (-2 * cents) / 3, `${m}-20`)
    }
    await h.spend(checking, food, -5_000, '2025-04-02')
    await h.spend(loan, food, -99_999, '2025-04-03')
    const forecast = await forecastMonth(h.store.db, h.ctx.householdId, '2025-04', '2025-04-10')
    const cell = forecast.categories.find((c) => c.categoryId === food)!
    // Actual 50.00 (the loan account's row is not spending); the rest after the 10th of each trailing month.
    expect(cell.actualCents).toBe('5000')
    expect(Number(cell.projectedCents)).toBeGreaterThan(15_000)
    // Deleting a trailing month's late row lowers the projection: the sums follow the ledger.
    const late = (
      await sql<{ id: string }>`select id from transactions where household_id = ${h.ctx.householdId}
      and date = '2025-03-20'`.execute(h.store.db)
    ).rows[0]!.id
    await h.run(operations.transactions.delete, { id: late })
    const after = await forecastMonth(h.store.db, h.ctx.householdId, '2025-04', '2025-04-10')
    expect(Number(after.categories.find((c) => c.categoryId === food)!.projectedCents)).toBeLessThan(
      Number(cell.projectedCents),
    )
    await expectKeptExact(h)
  })
})
