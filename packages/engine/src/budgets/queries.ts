import { notFound } from '../errors.ts'
import { defineQuery } from '../mutator/define.ts'
import { readBudget } from './flows.ts'
import { BudgetCategoryArgsSchema, BudgetMonthArgsSchema } from './schema.ts'
import {
  type BudgetCategorySnapshot,
  type BudgetGroupSnapshot,
  type BudgetMonthSnapshot,
  snapshotOf,
} from './snapshot.ts'
import type { BudgetHistoryKind } from './tables.ts'

/** The month snapshot: Ready to Assign, and income, assigned, activity, available and state per category and group. */
export const getBudgetMonth = defineQuery({
  audience: 'device',
  description:
    'The month snapshot: Ready to Assign, and assigned, activity, available and state per category and group.',
  scope: 'read:budgets',
  args: BudgetMonthArgsSchema,
  async run(db, args, ctx): Promise<BudgetMonthSnapshot> {
    const { loaded, budget } = await readBudget(db, ctx.householdId, args.month)
    return snapshotOf(loaded, args.month, budget)
  },
})

/** One category of a month's budget, with its group. */
export interface BudgetCategoryMonth extends BudgetCategorySnapshot {
  month: string
  group: Omit<BudgetGroupSnapshot, 'categories'>
}

/** One category in one month: carried in, assigned, activity, available, overspending and state. */
export const getBudgetCategory = defineQuery({
  audience: 'device',
  description:
    'One category in one month: carried in, assigned, activity, available, overspending and state.',
  scope: 'read:budgets',
  args: BudgetCategoryArgsSchema,
  async run(db, args, ctx): Promise<BudgetCategoryMonth> {
    const { loaded, budget } = await readBudget(db, ctx.householdId, args.month)
    const snapshot = snapshotOf(loaded, args.month, budget)
    for (const { categories, ...group } of snapshot.groups) {
      const category = categories.find((c) => c.id === args.categoryId)
      if (category && !category.deleted && !group.deleted) return { month: args.month, ...category, group }
    }
    throw notFound('Category', args.categoryId)
  },
})

/** One entry of a cell's history. */
export interface BudgetHistoryEntry {
  id: string
  month: string
  categoryId: string
  kind: BudgetHistoryKind
  previousCents: string
  assignedCents: string
  deltaCents: string
  counterpartCategoryId: string | null
  userId: string | null
  createdAt: string
}

/** Every assign and every move in or out of a category in a month, newest first. */
export const getBudgetHistory = defineQuery({
  audience: 'device',
  description: 'Every assign and every move in or out of a category in a month, newest first.',
  scope: 'read:budgets',
  args: BudgetCategoryArgsSchema,
  async run(db, args, ctx): Promise<{ items: BudgetHistoryEntry[] }> {
    const category = await db
      .selectFrom('categories')
      .select('id')
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.categoryId)
      .executeTakeFirst()
    const card = category
      ? undefined
      : await db
          .selectFrom('accounts')
          .select('id')
          .where('household_id', '=', ctx.householdId)
          .where('id', '=', args.categoryId)
          .where('type', '=', 'credit')
          .where('deleted_at', 'is', null)
          .executeTakeFirst()
    if (!category && !card) throw notFound('Category', args.categoryId)
    const rows = await db
      .selectFrom('budget_history')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .where('category_id', '=', args.categoryId)
      .where('month', '=', args.month)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute()
    return {
      items: rows.map((r) => ({
        id: r.id,
        month: r.month,
        categoryId: r.category_id,
        kind: r.kind,
        previousCents: String(r.previous_cents),
        assignedCents: String(r.assigned_cents),
        deltaCents: String(r.delta_cents),
        counterpartCategoryId: r.counterpart_category_id,
        userId: r.user_id,
        createdAt: r.created_at.toISOString(),
      })),
    }
  },
})
