import type { Transaction } from 'kysely'
import type { Database } from '../database.ts'
import type { TransactionPipelineStep } from '../ledger/transactions/pipeline.ts'
import type { MutationContext } from '../mutator/context.ts'
import { loadBudget } from './flows.ts'
import { budgetMonth } from './model.ts'
import { monthOf } from './month.ts'

type Tx = Transaction<Database>

/**
 * Announces spending categories that a write left overspent: for each (month, category) named,
 * one `budget.overrun` when its available first drops below zero, and none again until it is
 * back at zero or above (then the record of the overrun is dropped).
 */
export async function checkOverruns(
  tx: Tx,
  ctx: MutationContext,
  cells: ReadonlyMap<string, ReadonlySet<string>>,
  options: { withAnnounced?: boolean } = {},
): Promise<void> {
  for (const [month, categoryIds] of [...cells].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const announced = await tx
      .selectFrom('budget_overruns')
      .select('category_id')
      .where('household_id', '=', ctx.householdId)
      .where('month', '=', month)
      .execute()
    // A transaction write may have moved a row out of an announced category: look at those too.
    const recovering = options.withAnnounced === false ? [] : announced.map((a) => a.category_id)
    const ids = [...new Set([...categoryIds, ...recovering])].sort()
    if (ids.length === 0) continue
    const loaded = await loadBudget(tx, ctx.householdId, month, ids)
    const budget = budgetMonth(loaded.flows, month)
    const known = new Set(announced.map((a) => a.category_id))
    for (const category of loaded.flows.categories) {
      if (category.kind !== 'spending') continue
      const available = budget.categories.get(category.id)?.available ?? 0n
      const id = `${month}:${category.id}`
      if (available < 0n && !known.has(category.id)) {
        await tx
          .insertInto('budget_overruns')
          .values({ household_id: ctx.householdId, id, month, category_id: category.id, created_at: ctx.now })
          .execute()
        ctx.emit('budget.overrun', {
          householdId: ctx.householdId,
          month,
          categoryId: category.id,
          availableCents: String(available),
        })
      } else if (available >= 0n && known.has(category.id)) {
        await tx
          .deleteFrom('budget_overruns')
          .where('household_id', '=', ctx.householdId)
          .where('id', '=', id)
          .execute()
      }
    }
  }
}

/** Adds a month and category to a set of cells to check. */
export function addCell(cells: Map<string, Set<string>>, month: string, categoryId: string | null): void {
  if (!categoryId) return
  const set = cells.get(month) ?? new Set<string>()
  set.add(categoryId)
  cells.set(month, set)
}

/** The transaction pipeline's overrun check: after every create, import or update of rows. */
export const budgetOverrunStep: TransactionPipelineStep = {
  name: 'budgets.overrun',
  async written(tx, rows, ctx) {
    const cells = new Map<string, Set<string>>()
    for (const row of rows) addCell(cells, monthOf(row.date), row.category_id)
    const splits = await tx
      .selectFrom('transaction_splits')
      .select(['transaction_id', 'category_id'])
      .where('household_id', '=', ctx.householdId)
      .where(
        'transaction_id',
        'in',
        rows.map((r) => r.id),
      )
      .execute()
    const dateOf = new Map(rows.map((r) => [r.id, r.date]))
    for (const s of splits) addCell(cells, monthOf(dateOf.get(s.transaction_id)!), s.category_id)
    await checkOverruns(tx, ctx, cells)
  },
}
