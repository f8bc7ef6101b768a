import { sql } from 'kysely'
import { invalid } from '../errors.ts'
import { defineMutator } from '../mutator/define.ts'
import { assignedOf, type CellChange, historyBase, requireBudgetCategory, writeCells } from './cells.ts'
import { AssignArgsSchema, CopyFromArgsSchema, MoveArgsSchema, ResetArgsSchema } from './schema.ts'

/** A cell as a write answers it. */
export interface BudgetCell {
  month: string
  categoryId: string
  assignedCents: string
}

function cellOf(month: string, categoryId: string, cents: number): BudgetCell {
  return { month, categoryId, assignedCents: String(cents) }
}

/**
 * Sets what a category is assigned in a month (replacing it) and records the change in its
 * history; the cell's key is the month and category, so two devices meet on one row and the
 * server's order decides the value, while the history keeps both.
 */
export const assignBudget = defineMutator({
  audience: 'device',
  description:
    'Sets what a category is assigned in a month, replacing what it had, and records it in the history.',
  scope: 'write:budgets',
  args: AssignArgsSchema,
  async run(tx, args, ctx): Promise<BudgetCell & { carryOverspending?: boolean }> {
    await requireBudgetCategory(tx, ctx, args.categoryId, 'categoryId')
    if (args.assignedCents === undefined && args.carryOverspending === undefined) {
      throw invalid('NOTHING_TO_UPDATE', 'Send assignedCents, carryOverspending or both.', [
        { path: 'assignedCents', message: 'Required when carryOverspending is left out.' },
      ])
    }
    if (args.assignedCents !== undefined) {
      await writeCells(tx, ctx, [
        {
          month: args.month,
          categoryId: args.categoryId,
          assignedCents: args.assignedCents,
          historyId: historyBase(args.historyId, ctx),
          kind: 'assign',
          always: true,
        },
      ])
    }
    if (args.carryOverspending !== undefined) {
      await sql`update categories set carry_overspending = ${args.carryOverspending}, updated_at = ${ctx.now}
        where household_id = ${ctx.householdId} and id = ${args.categoryId}`.execute(tx)
    }
    const cents = args.assignedCents ?? (await assignedOf(tx, ctx.householdId, args.month, args.categoryId))
    return cellOf(args.month, args.categoryId, cents)
  },
})

/** Moves money from one category to another in one month, atomically, with a history entry on each side. */
export const moveBudget = defineMutator({
  audience: 'device',
  description:
    'Moves money from one category to another in one month, atomically, with a history entry on each side.',
  scope: 'write:budgets',
  args: MoveArgsSchema,
  async run(tx, args, ctx): Promise<{ from: BudgetCell; to: BudgetCell }> {
    if (args.fromCategoryId === args.toCategoryId) {
      throw invalid('BUDGET_MOVE_SAME_CATEGORY', 'A move needs two different categories.', [
        { path: 'toCategoryId', message: 'Same as fromCategoryId.' },
      ])
    }
    await requireBudgetCategory(tx, ctx, args.fromCategoryId, 'fromCategoryId')
    await requireBudgetCategory(tx, ctx, args.toCategoryId, 'toCategoryId')
    const base = historyBase(args.historyId, ctx)
    const from = (await assignedOf(tx, ctx.householdId, args.month, args.fromCategoryId)) - args.amountCents
    const to = (await assignedOf(tx, ctx.householdId, args.month, args.toCategoryId)) + args.amountCents
    await writeCells(tx, ctx, [
      {
        month: args.month,
        categoryId: args.fromCategoryId,
        assignedCents: from,
        historyId: `${base}:from`,
        kind: 'move',
        counterpartCategoryId: args.toCategoryId,
      },
      {
        month: args.month,
        categoryId: args.toCategoryId,
        assignedCents: to,
        historyId: `${base}:to`,
        kind: 'move',
        counterpartCategoryId: args.fromCategoryId,
      },
    ])
    return {
      from: cellOf(args.month, args.fromCategoryId, from),
      to: cellOf(args.month, args.toCategoryId, to),
    }
  },
})

/** Every assignment of a month, for a whole-month change. */
async function monthCells(tx: Parameters<typeof assignedOf>[0], householdId: string, month: string) {
  return tx
    .selectFrom('budget_cells')
    .select(['category_id', 'assigned_cents'])
    .where('household_id', '=', householdId)
    .where('month', '=', month)
    .orderBy('category_id')
    .execute()
}

/** The changes that bring a month's cells to `target` (a category missing from it becomes 0). */
function changesTo(
  month: string,
  current: readonly { category_id: string; assigned_cents: number }[],
  target: ReadonlyMap<string, number>,
  base: string,
  kind: CellChange['kind'],
): CellChange[] {
  const ids = [...new Set([...current.map((c) => c.category_id), ...target.keys()])].sort()
  return ids.map((categoryId) => ({
    month,
    categoryId,
    assignedCents: target.get(categoryId) ?? 0,
    historyId: `${base}:${categoryId}`,
    kind,
  }))
}

/**
 * Copies every assignment of the source month onto the month, overwriting it: a category
 * assigned in the month but not in the source goes back to 0. Only changed cells get history.
 */
export const copyBudgetFrom = defineMutator({
  audience: 'device',
  description: 'Copies every assignment of the source month onto the month, overwriting it.',
  scope: 'write:budgets',
  args: CopyFromArgsSchema,
  async run(tx, args, ctx): Promise<{ month: string; sourceMonth: string; changed: number }> {
    if (args.sourceMonth === args.month) {
      throw invalid('BUDGET_COPY_SAME_MONTH', 'Copy from another month.', [
        { path: 'sourceMonth', message: 'Same as the month.' },
      ])
    }
    const base = historyBase(args.historyId, ctx)
    const source = await monthCells(tx, ctx.householdId, args.sourceMonth)
    const target = new Map(
      source.filter((c) => c.assigned_cents !== 0).map((c) => [c.category_id, c.assigned_cents]),
    )
    const current = await monthCells(tx, ctx.householdId, args.month)
    const changes = changesTo(args.month, current, target, base, 'copy')
    const changed = changes.filter(
      (c) => c.assignedCents !== (current.find((x) => x.category_id === c.categoryId)?.assigned_cents ?? 0),
    )
    await writeCells(tx, ctx, changed)
    return { month: args.month, sourceMonth: args.sourceMonth, changed: changed.length }
  },
})

/** Clears every assignment of a month; only an owner may. */
export const resetBudget = defineMutator({
  audience: 'device',
  ownerOnly: true,
  description: 'Clears every assignment of the month.',
  scope: 'write:budgets',
  args: ResetArgsSchema,
  async run(tx, args, ctx): Promise<{ month: string; changed: number }> {
    const base = historyBase(args.historyId, ctx)
    const current = await monthCells(tx, ctx.householdId, args.month)
    const changes = changesTo(args.month, current, new Map(), base, 'reset').filter(
      (c) => (current.find((x) => x.category_id === c.categoryId)?.assigned_cents ?? 0) !== 0,
    )
    await writeCells(tx, ctx, changes)
    return { month: args.month, changed: changes.length }
  },
})
