import type { Transaction } from 'kysely'
import { NoArgsSchema } from '../catalog/fields.ts'
import type { Database } from '../database.ts'
import { conflict } from '../errors.ts'
import type { ReferenceUse } from '../ledger/references.ts'
import { requireReferences } from '../ledger/references.ts'
import { defineMutator } from '../mutator/define.ts'
import { finishRun, planRun, type RuleRunResult, runResult, writePage } from './backfill.ts'
import { compileRules, liveRules, requireRule } from './load.ts'
import { type Rule, toRule } from './model.ts'
import { type Action, CreateRuleArgsSchema, RuleIdArgsSchema, UpdateRuleArgsSchema } from './schema.ts'

/** Every category, payee, tag and flag an action names must be live in the household (404 naming the path). */
async function requireActionReferences(tx: Transaction<Database>, householdId: string, action: Action) {
  const uses: ReferenceUse[] = []
  if (action.setCategoryId)
    uses.push({ table: 'categories', id: action.setCategoryId, path: 'action.setCategoryId' })
  if (action.setPayeeId) uses.push({ table: 'payees', id: action.setPayeeId, path: 'action.setPayeeId' })
  action.addTagIds?.forEach((id, i) => {
    uses.push({ table: 'tags', id, path: `action.addTagIds.${i}` })
  })
  action.addFlagIds?.forEach((id, i) => {
    uses.push({ table: 'flags', id, path: `action.addFlagIds.${i}` })
  })
  await requireReferences(tx, householdId, uses)
}

/** Creates a rule; what its action names must exist, and its predicate is checked field by field. */
export const createRule = defineMutator({
  audience: 'device',
  description: 'Creates a classification rule.',
  scope: 'write:rules',
  args: CreateRuleArgsSchema,
  async run(tx, args, ctx): Promise<Rule> {
    const taken = await tx
      .selectFrom('rules')
      .select('id')
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .executeTakeFirst()
    if (taken) throw conflict('ID_ALREADY_EXISTS', `The id ${args.id} is already in use.`, { id: args.id })
    await requireActionReferences(tx, ctx.householdId, args.action)
    const row = await tx
      .insertInto('rules')
      .values({
        household_id: ctx.householdId,
        id: args.id,
        name: args.name,
        predicate: JSON.stringify(args.predicate),
        action: JSON.stringify(args.action),
        enabled: args.enabled ?? true,
        priority: args.priority ?? 0,
        created_at: ctx.now,
        updated_at: ctx.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    const rule = toRule(row)
    ctx.emit('rule.created', { rule })
    return rule
  },
})

/** Changes a rule's name, predicate, action, enabled state or priority; nothing it already did is undone. */
export const updateRule = defineMutator({
  audience: 'device',
  description: "Changes a rule's name, predicate, action, enabled state or priority.",
  scope: 'write:rules',
  args: UpdateRuleArgsSchema,
  async run(tx, args, ctx): Promise<Rule> {
    const { id, ...patch } = args
    await requireRule(tx, ctx.householdId, id)
    if (patch.action) await requireActionReferences(tx, ctx.householdId, patch.action)
    const row = await tx
      .updateTable('rules')
      .set({
        ...(patch.name !== undefined && { name: patch.name }),
        ...(patch.predicate !== undefined && { predicate: JSON.stringify(patch.predicate) }),
        ...(patch.action !== undefined && { action: JSON.stringify(patch.action) }),
        ...(patch.enabled !== undefined && { enabled: patch.enabled }),
        ...(patch.priority !== undefined && { priority: patch.priority }),
        // A learned rule someone changed is theirs: learning leaves it alone from now on.
        learned: false,
        updated_at: ctx.now,
      })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow()
    const rule = toRule(row)
    ctx.emit('rule.updated', { rule, changes: Object.keys(patch) })
    return rule
  },
})

/** Soft-deletes a rule: it stops running, and the record of what it did stays. */
export const deleteRule = defineMutator({
  audience: 'device',
  description: 'Soft-deletes a rule; it stops running and its application records stay.',
  scope: 'write:rules',
  args: RuleIdArgsSchema,
  async run(tx, args, ctx) {
    await requireRule(tx, ctx.householdId, args.id)
    await tx
      .updateTable('rules')
      .set({ deleted_at: ctx.now, updated_at: ctx.now })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .execute()
    ctx.emit('rule.deleted', { id: args.id })
    return { id: args.id }
  },
})

/**
 * Back-fills one rule (enabled or not) over the existing rows it matches, replacing the fields it
 * sets; reconciled and system rows are left alone. Every change is recorded as `manual`.
 */
export const applyRule = defineMutator({
  audience: 'device',
  description: 'Back-fills one rule over existing transactions (trigger manual).',
  scope: 'write:rules',
  args: RuleIdArgsSchema,
  async run(tx, args, ctx): Promise<RuleRunResult> {
    const rule = await requireRule(tx, ctx.householdId, args.id)
    const rules = await compileRules(tx, ctx.householdId, [rule])
    const { examined, plans } = await planRun(tx, ctx.householdId, rules, (page) =>
      writePage(tx, ctx.householdId, page, ctx.now),
    )
    await finishRun(tx, ctx.householdId, plans, ctx.now)
    const result = runResult(examined, plans)
    if (result.changedCount > 0) ctx.emit('rule.applied', appliedEvent(rule.id, result))
    return result
  },
})

/**
 * Runs every enabled rule over the existing rows in priority order; per row and field the first
 * matching rule wins. Reconciled and system rows are left alone; changes are recorded as `manual`.
 */
export const applyAllRules = defineMutator({
  audience: 'device',
  description:
    'Runs every enabled rule over existing transactions, in priority order; first match wins per field.',
  scope: 'write:rules',
  cost: 'expensive',
  args: NoArgsSchema,
  async run(tx, _args, ctx): Promise<RuleRunResult> {
    const rules = await compileRules(
      tx,
      ctx.householdId,
      await liveRules(tx, ctx.householdId, { enabledOnly: true }),
    )
    const { examined, plans } = await planRun(tx, ctx.householdId, rules, (page) =>
      writePage(tx, ctx.householdId, page, ctx.now),
    )
    await finishRun(tx, ctx.householdId, plans, ctx.now)
    const result = runResult(examined, plans)
    if (result.changedCount > 0) ctx.emit('rule.applied', appliedEvent(null, result))
    return result
  },
})

/** One event per back-fill, naming at most the rows the result lists. */
function appliedEvent(ruleId: string | null, result: RuleRunResult) {
  return {
    ruleId,
    changedCount: result.changedCount,
    transactionIds: result.items.map((i) => i.transactionId),
    truncated: result.truncated,
  }
}
