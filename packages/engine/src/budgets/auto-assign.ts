import { defineMutator } from '../mutator/define.ts'
import { historyBase, writeCells } from './cells.ts'
import { loadBudget } from './flows.ts'
import { AutoAssignArgsSchema } from './schema.ts'
import { snapshotOf } from './snapshot.ts'

/** A category auto-assign raised. */
export interface AutoAssigned {
  categoryId: string
  previousCents: string
  assignedCents: string
}

/** What auto-assign did, and what is left to assign. */
export interface AutoAssignResult {
  month: string
  assigned: AutoAssigned[]
  readyToAssignCents: string
}

/** A category waiting for money, in the order auto-assign serves it. */
export interface GoalClaim {
  categoryId: string
  overspent: boolean
  dueDate: string | null
  /** Its place in the month snapshot (group order, then category order). */
  order: number
  underfunded: bigint
  assigned: bigint
}

/**
 * Serves underfunded goals from what is ready to assign: overspent categories first, then by
 * soonest due date (no date last), then in display order, each raised to its suggested amount
 * or by what is left, stopping when nothing is.
 */
export function planAutoAssign(claims: readonly GoalClaim[], ready: bigint): Map<string, bigint> {
  const ordered = [...claims].sort(
    (a, b) =>
      Number(b.overspent) - Number(a.overspent) ||
      (a.dueDate ?? '9999').localeCompare(b.dueDate ?? '9999') ||
      a.order - b.order,
  )
  const raised = new Map<string, bigint>()
  let left = ready
  for (const claim of ordered) {
    if (left <= 0n) break
    if (claim.underfunded <= 0n) continue
    const raise = claim.underfunded < left ? claim.underfunded : left
    raised.set(claim.categoryId, claim.assigned + raise)
    left -= raise
  }
  return raised
}

/**
 * Raises every category with a goal to the amount its goal suggests for the month, overspent
 * categories first, then by soonest due date, until Ready to Assign reaches zero.
 */
export const autoAssignFromGoals = defineMutator({
  audience: 'device',
  description:
    'Raises every category with a goal to its suggested amount for the month, overspent first, then by soonest due date, until Ready to Assign reaches zero.',
  scope: 'write:budgets',
  args: AutoAssignArgsSchema,
  async run(tx, args, ctx): Promise<AutoAssignResult> {
    const base = historyBase(args.historyId, ctx)
    const snapshot = snapshotOf(await loadBudget(tx, ctx.householdId, args.month), args.month)
    const claims: GoalClaim[] = []
    for (const group of snapshot.groups) {
      if (group.isIncome || group.deleted) continue
      for (const c of group.categories) {
        if (!c.goal || c.deleted) continue
        claims.push({
          categoryId: c.id,
          overspent: BigInt(c.availableCents) < 0n,
          dueDate: c.goal.dueDate,
          order: claims.length,
          underfunded: BigInt(c.goal.underfundedCents),
          assigned: BigInt(c.assignedCents),
        })
      }
    }
    const ready = BigInt(snapshot.readyToAssignCents)
    const plan = planAutoAssign(claims, ready)
    const assigned: AutoAssigned[] = []
    let spent = 0n
    for (const [categoryId, cents] of plan) {
      const previous = claims.find((c) => c.categoryId === categoryId)!.assigned
      spent += cents - previous
      assigned.push({ categoryId, previousCents: String(previous), assignedCents: String(cents) })
    }
    await writeCells(
      tx,
      ctx,
      assigned.map((a) => ({
        month: args.month,
        categoryId: a.categoryId,
        assignedCents: Number(a.assignedCents),
        historyId: `${base}:${a.categoryId}`,
        kind: 'auto_assign' as const,
      })),
    )
    return { month: args.month, assigned, readyToAssignCents: String(ready - spent) }
  },
})
