import { retireCategories } from '../catalog/mutators/retire-categories.ts'
import { insufficientScope, invalid, notFound } from '../errors.ts'
import { defineMutator } from '../mutator/define.ts'
import { assignedOf, historyBase, requireBudgetCategory, writeCells } from './cells.ts'
import { readBudget } from './flows.ts'
import type { BudgetCell } from './mutators.ts'
import { DeleteCategoryArgsSchema } from './schema.ts'
import { snapshotOf } from './snapshot.ts'

/** What deleting a category with its money did. */
export interface CategoryDeletion {
  month: string
  categoryId: string
  /** What the category held that month, now in `moveTo` (negative: overspending `moveTo` covered). */
  movedCents: string
  /** The receiving category's cell as it now stands; null when the category held nothing. */
  moveTo: BudgetCell | null
}

/**
 * Deletes a category and moves what it holds in a month to another category, in one
 * transaction: a category with money available gives it all to the other one (a move, with a
 * history entry on each side), an overspent one has its overspending covered by the other,
 * then the category is deleted as `categories.delete` does (transactions keep it, payee
 * defaults that pointed at it are cleared).
 */
export const deleteCategoryWithMoney = defineMutator({
  audience: 'device',
  description:
    'Deletes a category and moves what it holds in a month (or what it overspent) to another category, in one transaction.',
  scope: 'write:categories',
  args: DeleteCategoryArgsSchema,
  async run(tx, args, ctx): Promise<CategoryDeletion> {
    if (args.moveToCategoryId === args.categoryId) {
      throw invalid('BUDGET_MOVE_SAME_CATEGORY', 'The money needs another category to go to.', [
        { path: 'moveToCategoryId', message: 'Same as categoryId.' },
      ])
    }
    // The money moves as a budget change: the caller needs that right too.
    if (!ctx.scopes.includes('write:budgets')) throw insufficientScope('write:budgets')
    await requireBudgetCategory(tx, ctx, args.categoryId, 'categoryId')
    await requireBudgetCategory(tx, ctx, args.moveToCategoryId, 'moveToCategoryId')
    const { loaded, budget } = await readBudget(tx, ctx.householdId, args.month)
    const held = snapshotOf(loaded, args.month, budget)
      .groups.flatMap((g) => g.categories)
      .find((c) => c.id === args.categoryId)
    if (!held) throw notFound('Category', args.categoryId)
    const moved = Number(held.availableCents)
    let moveTo: BudgetCell | null = null
    if (moved !== 0) {
      const base = historyBase(args.historyId, ctx)
      const from = (await assignedOf(tx, ctx.householdId, args.month, args.categoryId)) - moved
      const to = (await assignedOf(tx, ctx.householdId, args.month, args.moveToCategoryId)) + moved
      await writeCells(tx, ctx, [
        {
          month: args.month,
          categoryId: args.categoryId,
          assignedCents: from,
          historyId: `${base}:from`,
          kind: 'move',
          counterpartCategoryId: args.moveToCategoryId,
        },
        {
          month: args.month,
          categoryId: args.moveToCategoryId,
          assignedCents: to,
          historyId: `${base}:to`,
          kind: 'move',
          counterpartCategoryId: args.categoryId,
        },
      ])
      moveTo = { month: args.month, categoryId: args.moveToCategoryId, assignedCents: String(to) }
    }
    await retireCategories(tx, ctx, [args.categoryId])
    return { month: args.month, categoryId: args.categoryId, movedCents: String(moved), moveTo }
  },
})
