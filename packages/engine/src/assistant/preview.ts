import type { Transaction } from 'kysely'
import { getBudgetCategory } from '../budgets/queries.ts'
import type { Database } from '../database.ts'
import type { HouseholdContext } from '../mutator/context.ts'
import { planRun, runResult } from '../rules/backfill.ts'
import { compileRules } from '../rules/load.ts'
import type { RuleRow } from '../rules/tables.ts'

type Args = Record<string, unknown>
type Previewer = (tx: Transaction<Database>, args: Args, ctx: HouseholdContext) => Promise<unknown>

const cents = (v: unknown) => BigInt(String(v))

/** The budget cells a move touches, before and after. */
const budgetMove: Previewer = async (tx, args, ctx) => {
  const month = String(args.month)
  const cell = async (categoryId: string, delta: bigint) => {
    const c = await getBudgetCategory.run(tx, { month, categoryId }, ctx)
    return {
      categoryId,
      name: c.name,
      assignedCents: { before: c.assignedCents, after: String(cents(c.assignedCents) + delta) },
      availableCents: { before: c.availableCents, after: String(cents(c.availableCents) + delta) },
    }
  }
  const amount = cents(args.amountCents)
  return {
    month,
    cells: [await cell(String(args.fromCategoryId), -amount), await cell(String(args.toCategoryId), amount)],
  }
}

/** The rows a bulk update touches, and each changed field before and after (the first 50). */
const bulkUpdate: Previewer = async (tx, args, ctx) => {
  const ids = args.ids as string[]
  const patch = args.patch as Record<string, unknown>
  const rows = await tx
    .selectFrom('transactions')
    .select(['id', 'date', 'amount_cents', 'category_id', 'payee_id', 'memo', 'status'])
    .where('household_id', '=', ctx.householdId)
    .where('id', 'in', ids)
    .where('deleted_at', 'is', null)
    .orderBy('date', 'desc')
    .execute()
  const column = { categoryId: 'category_id', payeeId: 'payee_id', memo: 'memo', status: 'status' } as const
  return {
    transactionCount: rows.length,
    transactions: rows.slice(0, 50).map((r) => ({
      id: r.id,
      date: r.date,
      amountCents: String(r.amount_cents),
      changes: Object.fromEntries(
        Object.entries(column)
          .filter(([field]) => patch[field] !== undefined)
          .map(([field, col]) => [field, { before: r[col], after: patch[field] }]),
      ),
    })),
  }
}

/** What the new rule would change if it were applied now: the rule preview of an unsaved rule. */
const ruleCreate: Previewer = async (tx, args, ctx) => {
  const row = {
    household_id: ctx.householdId,
    id: String(args.id),
    name: String(args.name),
    predicate: args.predicate,
    action: args.action,
    enabled: true,
    priority: Number(args.priority ?? 0),
    learned: false,
    created_at: ctx.now,
    updated_at: ctx.now,
    deleted_at: null,
  } as unknown as RuleRow
  const { examined, plans } = await planRun(
    tx,
    ctx.householdId,
    await compileRules(tx, ctx.householdId, [row]),
  )
  const result = runResult(examined, plans)
  return {
    ...result,
    items: result.items.slice(0, 50),
    truncated: result.items.length > 50 || result.truncated,
  }
}

const PREVIEWERS: Record<string, Previewer> = {
  'budgets.move': budgetMove,
  'transactions.bulkUpdate': bulkUpdate,
  'rules.create': ruleCreate,
}

/** What confirming an action would change, read now; `{}` for operations with no preview yet. */
export async function previewAction(
  tx: Transaction<Database>,
  operation: string,
  args: Args,
  ctx: HouseholdContext,
): Promise<unknown> {
  const previewer = PREVIEWERS[operation]
  return previewer ? previewer(tx, args, ctx) : {}
}
