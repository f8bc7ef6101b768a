import { type HouseholdContext, localDate, operations, runMutation, SCOPES, type Store } from '@hearth/engine'
import { sql } from 'kysely'
import { monotonicFactory } from 'ulidx'
import { prng } from './stats.ts'

/** A generated household: three years of recurring bills, seasonal spending and noise. */
export interface RecurrenceHousehold {
  ctx: HouseholdContext
  today: string
  transactions: number
  categories: Map<string, string>
}

const VARIABLE: { name: string; perDay: number; mean: number; season: number[] }[] = [
  // season: a multiplier per month, January first.
  { name: 'Groceries', perDay: 30, mean: 1_800, season: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1.1, 1.3] },
  { name: 'Dining', perDay: 18, mean: 2_500, season: [0.8, 0.8, 0.9, 1, 1.1, 1.2, 1.3, 1.3, 1, 1, 0.9, 1.4] },
  { name: 'Fuel', perDay: 10, mean: 4_000, season: [0.9, 0.9, 1, 1, 1.1, 1.2, 1.4, 1.4, 1, 1, 0.9, 1] },
  { name: 'Shopping', perDay: 14, mean: 3_000, season: [0.7, 0.7, 0.9, 1, 1, 1, 1, 1, 1, 1.1, 1.5, 2.2] },
  { name: 'Transit', perDay: 9, mean: 300, season: [1, 1, 1, 1, 1, 0.8, 0.6, 0.6, 1, 1, 1, 1] },
  { name: 'Health', perDay: 3, mean: 4_500, season: [1.3, 1.2, 1, 1, 1, 1, 1, 1, 1, 1, 1.1, 1.2] },
  { name: 'Kids', perDay: 5, mean: 2_000, season: [1, 1, 1, 1, 1, 1, 1, 1.8, 1.5, 1, 1, 1.2] },
]

const BILLS: { name: string; category: string; day: number; cents: number; seasonal?: boolean }[] = [
  { name: 'Rent', category: 'Housing', day: 1, cents: 150_000 },
  { name: 'Electricity', category: 'Utilities', day: 14, cents: 9_000, seasonal: true },
  { name: 'Water', category: 'Utilities', day: 20, cents: 3_500 },
  { name: 'Phone', category: 'Subscriptions', day: 8, cents: 4_500 },
  { name: 'Streamly', category: 'Subscriptions', day: 6, cents: 1_599 },
  { name: 'Tunes', category: 'Subscriptions', day: 18, cents: 999 },
  { name: 'Gym', category: 'Subscriptions', day: 3, cents: 3_900 },
]

/**
 * Builds the household: accounts, categories, payees and recurrences through the engine, then
 * about 100,000 rows over three years ending today, inserted in bulk (a read benchmark measures
 * reads; how fast rows are written is bench/src/ledger.ts's concern), with balances set to match.
 */
export async function seedRecurrenceHousehold(store: Store, target = 100_000): Promise<RecurrenceHousehold> {
  const rnd = prng(2626)
  const ulid = monotonicFactory(() => rnd())
  const userId = ulid()
  const householdId = ulid()
  const now = new Date()
  const actor = { userId, scopes: [...SCOPES], now }
  await runMutation(store.db, operations.users.create, { id: userId, name: 'Bench' }, actor)
  const ctx: HouseholdContext = { ...actor, householdId, role: 'owner' }
  await runMutation(
    store.db,
    operations.households.create,
    { id: householdId, name: 'Recurrence bench' },
    ctx,
  )
  const run = async (op: Parameters<typeof runMutation>[1], args: unknown) =>
    (await runMutation(store.db, op, args, ctx)).result as { id: string }
  const checking = (await run(operations.accounts.create, { id: ulid(), name: 'Checking', type: 'cash' })).id
  const card = (
    await run(operations.accounts.create, { id: ulid(), name: 'Visa', type: 'credit', paymentDueDay: 25 })
  ).id
  const group = (await run(operations.categoryGroups.create, { id: ulid(), name: 'Spending' })).id
  const categories = new Map<string, string>()
  for (const name of [...VARIABLE.map((v) => v.name), 'Housing', 'Utilities', 'Subscriptions', 'Income']) {
    categories.set(name, (await run(operations.categories.create, { id: ulid(), groupId: group, name })).id)
  }
  const payees = new Map<string, string>()
  const payee = async (name: string) => {
    if (!payees.has(name)) payees.set(name, (await run(operations.payees.create, { id: ulid(), name })).id)
    return payees.get(name)!
  }

  const today = localDate(now, 'UTC')
  const start = new Date(Date.parse(`${today}T00:00:00Z`) - 3 * 365 * 86_400_000)
  const rows: Record<string, unknown>[] = []
  const push = (
    date: string,
    cents: number,
    account: string,
    payeeId: string,
    category: string,
    source = 'imported',
  ) =>
    rows.push({
      household_id: householdId,
      id: ulid(),
      account_id: account,
      date,
      amount_cents: cents,
      payee_id: payeeId,
      category_id: categories.get(category)!,
      status: 'cleared',
      source,
      created_at: now,
      updated_at: now,
    })
  const shopNames = Array.from({ length: 300 }, (_, i) => `Shop ${i}`)
  for (const name of shopNames) await payee(name)
  const scale = target / 1.0e5
  for (let t = start.getTime(); ; t += 86_400_000) {
    const date = new Date(t).toISOString().slice(0, 10)
    if (date > today) break
    const month = Number(date.slice(5, 7)) - 1
    const dom = Number(date.slice(8))
    for (const v of VARIABLE) {
      const count = Math.round(v.perDay * scale * (0.5 + rnd()) * Math.sqrt(v.season[month]!))
      for (let i = 0; i < count; i++) {
        const cents = Math.round((v.mean * v.season[month]! * (0.4 + rnd() * 1.2)) / 3)
        push(
          date,
          -Math.max(50, cents),
          rnd() < 0.6 ? card : checking,
          payees.get(shopNames[Math.floor(rnd() * 300)]!)!,
          v.name,
        )
      }
    }
    for (const b of BILLS) {
      if (dom !== b.day) continue
      const winter = [0, 1, 11].includes(month) ? 1.6 : [5, 6, 7].includes(month) ? 1.2 : 1
      const rise =
        b.name === 'Streamly' &&
        date >= new Date(Date.parse(`${today}T00:00:00Z`) - 80 * 86_400_000).toISOString()
          ? 1.125
          : 1
      push(
        date,
        -Math.round(b.cents * (b.seasonal ? winter : 1) * rise),
        checking,
        await payee(b.name),
        b.category,
      )
    }
    if (new Date(t).getUTCDay() === 5 && Math.floor(t / 86_400_000 / 7) % 2 === 0) {
      push(date, 420_000, checking, await payee('Employer'), 'Income')
    }
  }
  for (let i = 0; i < rows.length; i += 1000) {
    await store.db
      .insertInto('transactions')
      .values(rows.slice(i, i + 1000) as never)
      .execute()
  }
  await sql`update accounts a set balance_cents = coalesce(s.total, 0), cleared_balance_cents = coalesce(s.total, 0)
    from (select account_id, sum(amount_cents) as total from transactions where household_id = ${householdId}
      group by account_id) s
    where a.household_id = ${householdId} and a.id = s.account_id`.execute(store.db)
  // The household tracks its rent and two subscriptions; detection finds the rest.
  for (const b of BILLS.filter((x) => ['Rent', 'Phone', 'Gym'].includes(x.name))) {
    await run(operations.recurrences.create, {
      id: ulid(),
      name: b.name,
      accountId: checking,
      amountCents: -b.cents,
      payeeId: await payee(b.name),
      categoryId: categories.get(b.category)!,
      frequency: 'monthly',
      dayOfMonth: b.day,
      startDate: start.toISOString().slice(0, 10),
    })
  }
  await sql`vacuum analyze transactions`.execute(store.db)
  return { ctx, today, transactions: rows.length, categories }
}
