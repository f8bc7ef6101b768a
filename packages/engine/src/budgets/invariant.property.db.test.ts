import { operations } from '@hearth/engine'
import fc from 'fast-check'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { dayAfterMonth } from './month.ts'
import { type BudgetHousehold, budgetHousehold } from './test-fixture.ts'

const MONTHS = ['2024-01', '2024-02', '2024-03', '2024-04']

type Step =
  | { kind: 'row'; account: number; category: number; amount: number; month: number; day: number }
  | { kind: 'transfer'; from: number; to: number; amount: number; month: number }
  | { kind: 'assign'; category: number; amount: number; month: number }
  | { kind: 'move'; from: number; to: number; amount: number; month: number }
  | { kind: 'carry'; category: number; on: boolean }
  | { kind: 'split'; account: number; a: number; b: number; amount: number; month: number }
  | { kind: 'edit'; pick: number; category: number; amount: number; month: number }
  | { kind: 'delete'; pick: number }

const month = fc.nat(MONTHS.length - 1)
const cents = fc.integer({ min: -60_000, max: 60_000 })
const positive = fc.integer({ min: 1, max: 60_000 })
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('row' as const),
      account: fc.nat(5),
      category: fc.nat(7),
      amount: cents,
      month,
      day: fc.integer({ min: 1, max: 28 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('transfer' as const),
      from: fc.nat(5),
      to: fc.nat(5),
      amount: positive,
      month,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('assign' as const), category: fc.nat(7), amount: cents, month }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('move' as const),
      from: fc.nat(7),
      to: fc.nat(7),
      amount: positive,
      month,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('carry' as const), category: fc.nat(7), on: fc.boolean() }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('split' as const),
      account: fc.nat(5),
      a: fc.nat(7),
      b: fc.nat(7),
      amount: cents,
      month,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('edit' as const),
      pick: fc.nat(1000),
      category: fc.nat(7),
      amount: cents,
      month,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat(1000) }) },
)

interface World {
  h: BudgetHousehold
  /** checking, savings (cash), visa, amex (credit), mortgage (loan), brokerage (tracking). */
  accounts: string[]
  /** income, three spending, the two cards' payment categories, none (uncategorized), and the income again. */
  categories: (string | null)[]
}

async function world(): Promise<World> {
  const h = await budgetHousehold()
  const salary = await h.category(await h.group('Income', true), 'Salary')
  const g = await h.group('Everyday')
  const spending = [await h.category(g, 'Food'), await h.category(g, 'Rent'), await h.category(g, 'Fun')]
  const accounts = [
    await h.account('cash', 50_000, '2024-01-01'),
    await h.account('cash'),
    await h.account('credit', -20_000, '2024-01-01'),
    await h.account('credit'),
    await h.account('loan', -100_000, '2024-01-01'),
    await h.account('tracking'),
  ]
  // The cards' payment categories are made by their first assignment.
  for (const card of [accounts[2]!, accounts[3]!]) await h.assign('2024-01', card, 0)
  return { h, accounts, categories: [salary, ...spending, accounts[2]!, accounts[3]!, null, salary] }
}

/** A live row of the household, picked by index, or none. */
async function pickRow(
  w: World,
  pick: number,
): Promise<{ id: string; transfer_group_id: string | null } | undefined> {
  const rows = await w.h.store.db
    .selectFrom('transactions')
    .select(['id', 'transfer_group_id'])
    .where('household_id', '=', w.h.ctx.householdId)
    .where('deleted_at', 'is', null)
    .where('kind', '=', 'normal')
    .orderBy('id')
    .execute()
  return rows.length ? rows[pick % rows.length] : undefined
}

async function apply(w: World, s: Step): Promise<void> {
  const { h } = w
  switch (s.kind) {
    case 'split': {
      const half = Math.trunc(s.amount / 2)
      await h.run(operations.transactions.create, {
        id: ulid(),
        accountId: w.accounts[s.account]!,
        date: `${MONTHS[s.month]}-20`,
        amountCents: s.amount,
        splits: [
          { amountCents: half, categoryId: w.categories[s.a] ?? null },
          { amountCents: s.amount - half, categoryId: w.categories[s.b] ?? null },
        ],
      })
      return
    }
    case 'edit': {
      const row = await pickRow(w, s.pick)
      if (!row) return
      const split = await h.store.db
        .selectFrom('transaction_splits')
        .select('id')
        .where('household_id', '=', h.ctx.householdId)
        .where('transaction_id', '=', row.id)
        .executeTakeFirst()
      const patch: Record<string, unknown> = { id: row.id, date: `${MONTHS[s.month]}-09` }
      if (!row.transfer_group_id) patch.amountCents = s.amount
      if (!split) patch.categoryId = w.categories[s.category] ?? null
      else patch.splits = []
      if (split && !row.transfer_group_id) patch.categoryId = w.categories[s.category] ?? null
      await h.run(operations.transactions.update, patch)
      return
    }
    case 'delete': {
      const row = await pickRow(w, s.pick)
      if (row) await h.run(operations.transactions.delete, { id: row.id })
      return
    }
    case 'row': {
      const categoryId = w.categories[s.category] ?? null
      await h.spend(
        w.accounts[s.account]!,
        categoryId,
        s.amount,
        `${MONTHS[s.month]}-${String(s.day).padStart(2, '0')}`,
      )
      return
    }
    case 'transfer':
      if (s.from === s.to) return
      await h.transfer(w.accounts[s.from]!, w.accounts[s.to]!, s.amount, `${MONTHS[s.month]}-15`)
      return
    case 'assign': {
      const id = w.categories[s.category]
      if (!id || s.category === 0 || s.category === 7) return
      await h.assign(MONTHS[s.month]!, id, s.amount)
      return
    }
    case 'move': {
      const from = w.categories[s.from]
      const to = w.categories[s.to]
      if (!from || !to || from === to || [0, 7].includes(s.from) || [0, 7].includes(s.to)) return
      await h.move(MONTHS[s.month]!, from, to, s.amount)
      return
    }
    case 'carry': {
      const id = w.categories[s.category]
      if (!id || s.category === 0 || s.category === 7) return
      await h.run(operations.budgets.assign, {
        month: '2024-01',
        categoryId: id,
        carryOverspending: s.on,
        historyId: ulid(),
      })
    }
  }
}

/**
 * The identity of docs/budgets.md, for every month: Ready to Assign + assigned in later months +
 * the available of every category = cash on budget + income booked on cards + credit overspending.
 */
async function checkIdentity(w: World): Promise<void> {
  const { h } = w
  // Every month as a reader sees it: rolled from closings earlier reads kept, where a write did not forget them.
  const kept = await sql<{ n: number }>`
    select count(*)::int as n from budget_closings where household_id = ${h.ctx.householdId}`.execute(
    h.store.db,
  )
  const cached = []
  for (const m of MONTHS) cached.push(await h.month(m))
  // The same months rolled from the first month, with no closing to start from.
  const fresh = []
  for (const m of MONTHS) {
    await sql`delete from budget_closings where household_id = ${h.ctx.householdId}`.execute(h.store.db)
    fresh.push(await h.month(m))
  }
  expect({ kept: kept.rows[0]!.n, cached }).toEqual({ kept: kept.rows[0]!.n, cached: fresh })
  for (const [i, m] of MONTHS.entries()) {
    const snap = fresh[i]!
    const { rows } = await sql<{ cash: string; card_income: string }>`
      select
        coalesce(sum(coalesce(s.amount_cents, t.amount_cents)) filter (where a.type = 'cash'), 0)::text as cash,
        coalesce(sum(coalesce(s.amount_cents, t.amount_cents)) filter (where a.type = 'credit' and g.is_income
          -- a leg of a transfer between two on-budget accounts counts in no category, whatever it names
          and not exists (
            select 1 from transactions o join accounts oa on oa.household_id = o.household_id and oa.id = o.account_id
            where o.household_id = t.household_id and o.transfer_group_id = t.transfer_group_id and o.id <> t.id
              and o.deleted_at is null and o.merged_into_id is null and oa.type in ('cash', 'credit'))), 0)::text
          as card_income
      from transactions t
      join accounts a on a.household_id = t.household_id and a.id = t.account_id
      left join transaction_splits s on s.household_id = t.household_id and s.transaction_id = t.id
      left join categories c on c.household_id = t.household_id and c.id = coalesce(s.category_id, t.category_id)
      left join category_groups g on g.household_id = c.household_id and g.id = c.group_id
      where t.household_id = ${h.ctx.householdId} and t.deleted_at is null and t.merged_into_id is null
        and t.date < ${dayAfterMonth(m)}::date`.execute(h.store.db)
    // A transfer between two on-budget accounts whose legs are dated apart is in flight while only
    // one leg is in: the budget counts neither until both are, while that leg already moved cash
    // (or, on a card, its payment category).
    const inFlight = await sql<{ cents: string }>`
      select coalesce(sum(t.amount_cents), 0)::text as cents
      from transactions t
      join accounts a on a.household_id = t.household_id and a.id = t.account_id and a.type in ('cash', 'credit')
      join transactions o on o.household_id = t.household_id and o.transfer_group_id = t.transfer_group_id
        and o.id <> t.id and o.deleted_at is null and o.merged_into_id is null
      join accounts oa on oa.household_id = o.household_id and oa.id = o.account_id and oa.type in ('cash', 'credit')
      where t.household_id = ${h.ctx.householdId} and t.deleted_at is null and t.merged_into_id is null
        and t.date < ${dayAfterMonth(m)}::date and o.date >= ${dayAfterMonth(m)}::date`.execute(h.store.db)
    const { cash, card_income } = rows[0]!
    const left =
      BigInt(snap.readyToAssignCents) + BigInt(snap.assignedInFutureCents) + BigInt(snap.availableCents)
    const right =
      BigInt(cash) +
      BigInt(card_income) +
      BigInt(snap.creditOverspendingCents) -
      BigInt(inFlight.rows[0]!.cents)
    expect({ month: m, identity: left }).toEqual({ month: m, identity: right })

    // Totals add up: groups to the month, categories to their group.
    let available = 0n
    let assigned = 0n
    let credit = 0n
    for (const g of snap.groups) {
      if (g.isIncome) continue
      expect(BigInt(g.availableCents)).toBe(g.categories.reduce((s, c) => s + BigInt(c.availableCents), 0n))
      available += BigInt(g.availableCents)
      assigned += BigInt(g.assignedCents)
      for (const c of g.categories) {
        credit += BigInt(c.creditOverspendingCents)
        expect(BigInt(c.availableCents)).toBe(
          BigInt(c.carriedInCents) + BigInt(c.assignedCents) + BigInt(c.activityCents),
        )
        expect(BigInt(c.cashOverspendingCents) + BigInt(c.creditOverspendingCents)).toBe(
          BigInt(c.availableCents) < 0n ? BigInt(c.availableCents) : 0n,
        )
      }
    }
    expect(available).toBe(BigInt(snap.availableCents))
    expect(assigned).toBe(BigInt(snap.assignedCents))
    expect(credit).toBe(BigInt(snap.creditOverspendingCents))
  }

  // The trigger-kept sums equal the ledger summed from scratch.
  const sums = await sql<{ id: string; cents: string }>`
    select id, amount_cents::text as cents from budget_activity
    where household_id = ${h.ctx.householdId} and amount_cents <> 0 order by id`.execute(h.store.db)
  const freshSums = await sql<{ id: string; cents: string }>`
    select month || ':' || account_id || ':' || coalesce(category_id, '') as id, sum(amount)::text as cents
    from (
      select to_char(t.date, 'YYYY-MM') as month, t.account_id, coalesce(s.category_id, t.category_id) as category_id,
             coalesce(s.amount_cents, t.amount_cents) as amount
      from transactions t
      left join transaction_splits s on s.household_id = t.household_id and s.transaction_id = t.id
      where t.household_id = ${h.ctx.householdId} and t.deleted_at is null and t.merged_into_id is null
        and t.transfer_group_id is null
    ) rows
    group by 1 having sum(amount) <> 0 order by 1`.execute(h.store.db)
  expect(sums.rows).toEqual(freshSums.rows)
}

describe('the budget identity', () => {
  it('holds after every step of random rows, splits, edits, deletes, card spending and payments, transfers, assignments and moves, and kept closings answer as a roll from scratch', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 25 }), async (steps) => {
        const w = await world()
        await checkIdentity(w)
        for (const s of steps) {
          await apply(w, s)
          await checkIdentity(w)
        }
      }),
      { numRuns: Number(process.env.BUDGET_PROPERTY_RUNS ?? 12), endOnFailure: true },
    )
  }, 300_000)
})
