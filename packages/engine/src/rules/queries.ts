import { sql } from 'kysely'
import { NoArgsSchema } from '../catalog/fields.ts'
import { defineQuery } from '../mutator/define.ts'
import { planRun, type RuleRunResult, runResult } from './backfill.ts'
import type { RuleChanges } from './classify.ts'
import { compileRules, liveRules, requireRule } from './load.ts'
import { type Rule, type RuleApplication, toRule, toRuleApplication } from './model.ts'
import { ListRuleApplicationsArgsSchema, RuleIdArgsSchema } from './schema.ts'

/** Most application records one list returns, newest first. */
export const MAX_APPLICATIONS = 500

/** Live rules in the order they run: priority, then creation. */
export const listRules = defineQuery({
  audience: 'device',
  description: 'Live rules in the order they run: priority, then creation.',
  scope: 'read:rules',
  args: NoArgsSchema,
  async run(db, _args, ctx): Promise<{ items: Rule[] }> {
    return { items: (await liveRules(db, ctx.householdId)).map(toRule) }
  },
})

/** One live rule. */
export const getRule = defineQuery({
  audience: 'device',
  description: 'One live rule.',
  scope: 'read:rules',
  args: RuleIdArgsSchema,
  async run(db, args, ctx): Promise<Rule> {
    return toRule(await requireRule(db, ctx.householdId, args.id))
  },
})

/** What applying one rule would change now; changes nothing, and equals what apply then does. */
export const previewRule = defineQuery({
  audience: 'device',
  description: 'What applying one rule would change; a dry run that changes nothing.',
  scope: 'read:rules',
  args: RuleIdArgsSchema,
  async run(db, args, ctx): Promise<RuleRunResult> {
    const rule = await requireRule(db, ctx.householdId, args.id)
    const { examined, plans } = await planRun(
      db,
      ctx.householdId,
      await compileRules(db, ctx.householdId, [rule]),
    )
    return runResult(examined, plans)
  },
})

/**
 * Why rows look as they do: which rule changed which fields of which row, newest first. Records
 * made on create and import are one per (row, rule); a back-fill's are one per rule and change
 * (`rule_runs`), listed here one item per row with the id `<transaction>:<rule>:<epoch ms>`.
 */
export const listRuleApplications = defineQuery({
  audience: 'device',
  description: 'Which rule changed which fields of which transaction, newest first.',
  scope: 'read:rules',
  args: ListRuleApplicationsArgsSchema,
  async run(db, args, ctx): Promise<{ items: RuleApplication[] }> {
    let rows = db.selectFrom('rule_applications').selectAll().where('household_id', '=', ctx.householdId)
    if (args.ruleId !== undefined) rows = rows.where('rule_id', '=', args.ruleId)
    if (args.transactionId !== undefined) rows = rows.where('transaction_id', '=', args.transactionId)
    const perRow = await rows
      .orderBy('applied_at', 'desc')
      .orderBy(sql`id collate "C"`, 'desc')
      .limit(MAX_APPLICATIONS)
      .execute()
    const runs = await sql<{
      rule_id: string
      transaction_id: string
      changes: RuleChanges
      applied_at: Date
    }>`
      select r.rule_id, t.transaction_id, r.changes, r.applied_at
      from rule_runs r cross join lateral unnest(r.transaction_ids) as t(transaction_id)
      where r.household_id = ${ctx.householdId}
        ${args.ruleId === undefined ? sql`` : sql`and r.rule_id = ${args.ruleId}`}
        ${
          args.transactionId === undefined
            ? sql``
            : sql`and r.transaction_ids @> array[${args.transactionId}]::text[] and t.transaction_id = ${args.transactionId}`
        }
      order by r.applied_at desc, t.transaction_id collate "C" desc, r.rule_id collate "C" desc
      limit ${MAX_APPLICATIONS}`.execute(db)
    const items = [
      ...perRow.map(toRuleApplication),
      ...runs.rows.map(
        (r): RuleApplication => ({
          id: `${r.transaction_id}:${r.rule_id}:${r.applied_at.getTime()}`,
          ruleId: r.rule_id,
          transactionId: r.transaction_id,
          trigger: 'manual',
          changes: r.changes,
          appliedAt: r.applied_at.toISOString(),
        }),
      ),
    ]
    // Newest first, then by id descending, as each of the two reads above ordered its own.
    items.sort((a, b) => descending(a.appliedAt, b.appliedAt) || descending(a.id, b.id))
    return { items: items.slice(0, MAX_APPLICATIONS) }
  },
})

/** A comparator's answer for descending order, by code unit (as `collate "C"` orders). */
function descending(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0
}
