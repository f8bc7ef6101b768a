import type { Transaction } from 'kysely'
import type { Database } from '../database.ts'
import type { TransactionPipelineStep } from '../ledger/transactions/pipeline.ts'
import type { MutationContext } from '../mutator/context.ts'
import { idList } from '../shared/id-list.ts'
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
  const months = [...cells.keys()].sort()
  if (months.length === 0) return
  const announced = await tx
    .selectFrom('budget_overruns')
    .select(['month', 'category_id'])
    .where('household_id', '=', ctx.householdId)
    .where('month', 'in', months)
    .execute()
  const known = new Set(announced.map((a) => `${a.month}:${a.category_id}`))
  const wanted = new Map(months.map((m) => [m, new Set(cells.get(m))]))
  // A transaction write may have moved a row out of an announced category: look at those too.
  if (options.withAnnounced !== false) for (const a of announced) wanted.get(a.month)?.add(a.category_id)
  const ids = [...new Set([...wanted.values()].flatMap((set) => [...set]))].sort()
  if (ids.length === 0) return
  // One read up to the last month serves every month before it.
  const loaded = await loadBudget(tx, ctx.householdId, months.at(-1)!, ids)
  const spending = new Set(loaded.flows.categories.filter((c) => c.kind === 'spending').map((c) => c.id))
  // Written in one statement each, however many cells an import touched.
  const overrun: { id: string; month: string; categoryId: string; available: bigint }[] = []
  const recovered: string[] = []
  for (const month of months) {
    const budget = budgetMonth(loaded.flows, month)
    for (const categoryId of [...(wanted.get(month) ?? [])].sort()) {
      if (!spending.has(categoryId)) continue
      const available = budget.categories.get(categoryId)?.available ?? 0n
      const id = `${month}:${categoryId}`
      if (available < 0n && !known.has(id)) overrun.push({ id, month, categoryId, available })
      else if (available >= 0n && known.has(id)) recovered.push(id)
    }
  }
  if (overrun.length > 0) {
    await tx
      .insertInto('budget_overruns')
      .values(
        overrun.map((o) => ({
          household_id: ctx.householdId,
          id: o.id,
          month: o.month,
          category_id: o.categoryId,
          created_at: ctx.now,
        })),
      )
      .execute()
    for (const o of overrun) {
      ctx.emit('budget.overrun', {
        householdId: ctx.householdId,
        month: o.month,
        categoryId: o.categoryId,
        availableCents: String(o.available),
      })
    }
  }
  if (recovered.length > 0) {
    await tx
      .deleteFrom('budget_overruns')
      .where('household_id', '=', ctx.householdId)
      .where('id', 'in', recovered)
      .execute()
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
      .where('transaction_id', '=', idList(rows.map((r) => r.id)))
      .execute()
    const dateOf = new Map(rows.map((r) => [r.id, r.date]))
    for (const s of splits) addCell(cells, monthOf(dateOf.get(s.transaction_id)!), s.category_id)
    await checkOverruns(tx, ctx, cells)
  },
}
