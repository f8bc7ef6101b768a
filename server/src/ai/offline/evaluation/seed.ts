import { type HouseholdContext, newUlid, operations, runMutation, type Store } from '@hearth/engine'
import { sql } from 'kysely'
import type { HouseholdPlan } from './household-plan.ts'

/**
 * Writes a plan into a household: its catalog, accounts and recurrences through the registry, its
 * rows in a few statements (as bench seeds do), then analyzed. The recurrences start tomorrow, so
 * nothing is booked while the evaluation runs.
 */
export async function seedHousehold(store: Store, ctx: HouseholdContext, plan: HouseholdPlan): Promise<void> {
  const run = (op: Parameters<typeof runMutation>[1], args: unknown) => runMutation(store.db, op, args, ctx)
  const living = newUlid()
  const income = newUlid()
  await run(operations.categoryGroups.create, { id: living, name: 'Living' })
  await run(operations.categoryGroups.create, { id: income, name: 'Income', isIncome: true })
  for (const c of plan.categories) {
    await run(operations.categories.create, { id: c.id, groupId: c.income ? income : living, name: c.name })
  }
  for (const p of plan.payees) await run(operations.payees.create, { id: p.id, name: p.name })
  for (const a of plan.accounts)
    await run(operations.accounts.create, { id: a.id, name: a.name, type: a.type })
  for (const t of plan.tags) await run(operations.tags.create, { id: t.id, name: t.name })
  const tomorrow = new Date(Date.parse(`${plan.today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)
  for (const r of plan.recurrences) {
    await run(operations.recurrences.create, {
      id: r.id,
      name: r.name,
      accountId: plan.accounts[0]!.id,
      amountCents: r.amountCents,
      payeeId: r.payee,
      categoryId: r.category,
      frequency: 'monthly',
      dayOfMonth: r.dayOfMonth,
      startDate: tomorrow,
    })
  }
  for (let i = 0; i < plan.rows.length; i += 5_000) {
    const page = plan.rows.slice(i, i + 5_000)
    await sql`
      insert into transactions (household_id, id, account_id, date, amount_cents, category_id, payee_id, status, source)
      select ${ctx.householdId}, r.id, r.account_id, r.date::date, r.amount_cents, r.category_id, r.payee_id, 'cleared', 'manual'
      from unnest(${page.map((r) => r.id)}::text[], ${page.map((r) => r.accountId)}::text[], ${page.map((r) => r.date)}::text[],
        ${page.map((r) => r.amountCents)}::bigint[], ${page.map((r) => r.categoryId)}::text[], ${page.map((r) => r.payeeId)}::text[])
        as r(id, account_id, date, amount_cents, category_id, payee_id)`.execute(store.db)
    const tagged = page.filter((r) => r.tagId)
    if (tagged.length > 0) {
      await sql`
        insert into transaction_tags (household_id, id, transaction_id, tag_id)
        select ${ctx.householdId}, r.tx || ':' || r.tag, r.tx, r.tag
        from unnest(${tagged.map((r) => r.id)}::text[], ${tagged.map((r) => r.tagId)}::text[]) as r(tx, tag)`.execute(
        store.db,
      )
    }
  }
  // Balances are kept by the mutators, which the rows above did not go through.
  await sql`
    update accounts a set
      balance_cents = coalesce((select sum(t.amount_cents) from transactions t
        where t.household_id = a.household_id and t.account_id = a.id and t.deleted_at is null), 0),
      cleared_balance_cents = coalesce((select sum(t.amount_cents) from transactions t
        where t.household_id = a.household_id and t.account_id = a.id and t.deleted_at is null), 0)
    where a.household_id = ${ctx.householdId}`.execute(store.db)
  await sql`analyze`.execute(store.db)
}
