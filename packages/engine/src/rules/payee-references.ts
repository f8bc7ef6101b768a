import type { Transaction } from 'kysely'
import type { Database } from '../database.ts'
import type { MutationContext } from '../mutator/context.ts'
import { toRule } from './model.ts'
import type { Action, Predicate } from './schema.ts'

/** A rule as it was before a payee merge rewrote it, for the unmerge to put back. */
export interface RepointedRule {
  id: string
  predicate: Predicate
  action: Action
  /** Its `updated_at` before the merge (ISO). */
  updatedAt: string
}

/** The predicate and action with every mention of payee `from` replaced by `to`; null when none. */
function repointed(
  predicate: Predicate,
  action: Action,
  from: string,
  to: string,
): { predicate: Predicate; action: Action } | null {
  let changed = false
  const conditions = predicate.conditions.map((c) => {
    if (c.field !== 'payee_id') return c
    if (Array.isArray(c.value)) {
      if (!c.value.includes(from)) return c
      changed = true
      return { ...c, value: [...new Set(c.value.map((v) => (v === from ? to : v)))] }
    }
    if (c.value !== from) return c
    changed = true
    return { ...c, value: to }
  }) as Predicate['conditions']
  const setPayeeId = action.setPayeeId === from ? to : action.setPayeeId
  if (setPayeeId !== action.setPayeeId) changed = true
  if (!changed) return null
  return {
    predicate: { ...predicate, conditions },
    action: action.setPayeeId === undefined ? action : { ...action, setPayeeId },
  }
}

/**
 * Points every live rule that names payee `from` (a payee condition, or the payee it sets) at
 * payee `to`, as a merge of `from` into `to` needs; answers what each rule was, for the unmerge.
 */
export async function repointRules(
  tx: Transaction<Database>,
  ctx: MutationContext,
  from: string,
  to: string,
): Promise<RepointedRule[]> {
  const householdId = ctx.householdId
  const rules = await tx
    .selectFrom('rules')
    .select(['id', 'predicate', 'action', 'updated_at'])
    .where('household_id', '=', householdId)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .execute()
  const before: RepointedRule[] = []
  for (const rule of rules) {
    const next = repointed(rule.predicate, rule.action, from, to)
    if (!next) continue
    before.push({
      id: rule.id,
      predicate: rule.predicate,
      action: rule.action,
      updatedAt: rule.updated_at.toISOString(),
    })
    const updated = await tx
      .updateTable('rules')
      .set({
        predicate: JSON.stringify(next.predicate),
        action: JSON.stringify(next.action),
        updated_at: ctx.now,
      })
      .where('household_id', '=', householdId)
      .where('id', '=', rule.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    ctx.emit('rule.updated', { rule: toRule(updated), changes: ['predicate', 'action'] })
  }
  return before
}

/**
 * Puts back the rules a merge rewrote, each as it was, unless someone changed it since the merge
 * (its `updated_at` is no longer the merge's): a later edit is the household's and stays.
 * Answers the ids left as they are.
 */
export async function restoreRules(
  tx: Transaction<Database>,
  ctx: MutationContext,
  rules: readonly RepointedRule[],
  mergedAt: Date,
): Promise<string[]> {
  const householdId = ctx.householdId
  const skipped: string[] = []
  for (const rule of rules) {
    const restored = await tx
      .updateTable('rules')
      .set({
        predicate: JSON.stringify(rule.predicate),
        action: JSON.stringify(rule.action),
        updated_at: rule.updatedAt,
      })
      .where('household_id', '=', householdId)
      .where('id', '=', rule.id)
      .where('updated_at', '=', mergedAt)
      .returningAll()
      .executeTakeFirst()
    if (restored) ctx.emit('rule.updated', { rule: toRule(restored), changes: ['predicate', 'action'] })
    else skipped.push(rule.id)
  }
  return skipped
}
