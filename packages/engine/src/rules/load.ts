import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../database.ts'
import { notFound } from '../errors.ts'
import type { MutationContext } from '../mutator/context.ts'
import { RuleSet, type RuleSpec } from './classify.ts'
import type { Action } from './schema.ts'
import type { RuleRow } from './tables.ts'

type Db = Kysely<Database> | Transaction<Database>

/** The live (not soft-deleted) rule with this id, or 404. */
export async function requireRule(db: Db, householdId: string, id: string): Promise<RuleRow> {
  const row = await db
    .selectFrom('rules')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst()
  if (!row) throw notFound('Rule', id)
  return row
}

/** Live rules in the order they run: priority, then creation, then id. */
export async function liveRules(db: Db, householdId: string, options: { enabledOnly?: boolean } = {}) {
  let query = db
    .selectFrom('rules')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('deleted_at', 'is', null)
  if (options.enabledOnly) query = query.where('enabled', '=', true)
  return query.orderBy('priority').orderBy('created_at').orderBy('id').execute()
}

async function liveIds(
  db: Db,
  householdId: string,
  table: 'categories' | 'payees' | 'tags' | 'flags',
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  let query = db.selectFrom(table).select('id').where('household_id', '=', householdId).where('id', 'in', ids)
  if (table === 'categories' || table === 'payees') query = query.where('deleted_at', 'is', null)
  return new Set((await query.execute()).map((r) => r.id))
}

/**
 * Compiles rules into a rule set. An action part naming a category or payee deleted since the
 * rule was written, or a tag or flag that no longer exists, is dropped (the rest still runs), so
 * a rule never writes a dangling reference. Loads the names of the payees actions set.
 */
export async function compileRules(db: Db, householdId: string, rows: readonly RuleRow[]): Promise<RuleSet> {
  const actions = rows.map((r) => r.action)
  const categories = await liveIds(db, householdId, 'categories', unique(actions.map((a) => a.setCategoryId)))
  const payeeIds = unique(actions.map((a) => a.setPayeeId))
  const payees =
    payeeIds.length === 0
      ? []
      : await db
          .selectFrom('payees')
          .select(['id', 'name'])
          .where('household_id', '=', householdId)
          .where('id', 'in', payeeIds)
          .where('deleted_at', 'is', null)
          .execute()
  const payeeNames = new Map(payees.map((p) => [p.id, p.name]))
  const tags = await liveIds(db, householdId, 'tags', unique(actions.flatMap((a) => a.addTagIds ?? [])))
  const flags = await liveIds(db, householdId, 'flags', unique(actions.flatMap((a) => a.addFlagIds ?? [])))
  const specs: RuleSpec[] = rows.map((r) => {
    const a = r.action
    const action: Action = {
      ...a,
      setCategoryId:
        a.setCategoryId !== undefined && categories.has(a.setCategoryId) ? a.setCategoryId : undefined,
      setPayeeId: a.setPayeeId !== undefined && payeeNames.has(a.setPayeeId) ? a.setPayeeId : undefined,
      addTagIds: a.addTagIds?.filter((t) => tags.has(t)),
      addFlagIds: a.addFlagIds?.filter((f) => flags.has(f)),
    }
    return { id: r.id, predicate: r.predicate, action }
  })
  return new RuleSet(specs, payeeNames)
}

/** The enabled rules of a household, compiled in the order they run. */
export async function enabledRuleSet(db: Db, householdId: string): Promise<RuleSet> {
  return compileRules(db, householdId, await liveRules(db, householdId, { enabledOnly: true }))
}

const ruleSetsOfMutations = new WeakMap<MutationContext, Promise<RuleSet>>()

/**
 * The enabled rules as one mutation sees them, loaded and compiled once however many pipeline
 * steps ask (classifying the new rows, then learning from them): a write's steps change no rule
 * before the last of them has read the rules.
 */
export function enabledRuleSetOf(tx: Db, ctx: MutationContext): Promise<RuleSet> {
  let rules = ruleSetsOfMutations.get(ctx)
  if (!rules) {
    rules = enabledRuleSet(tx, ctx.householdId)
    ruleSetsOfMutations.set(ctx, rules)
  }
  return rules
}

function unique(ids: readonly (string | undefined)[]): string[] {
  return [...new Set(ids.filter((id): id is string => id !== undefined))]
}
