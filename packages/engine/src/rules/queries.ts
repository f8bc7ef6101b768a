import { NoArgsSchema } from '../catalog/fields.ts'
import { defineQuery } from '../mutator/define.ts'
import { planRun, type RuleRunResult, runResult } from './backfill.ts'
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

/** Why rows look as they do: which rule changed which fields of which row, newest first. */
export const listRuleApplications = defineQuery({
  audience: 'device',
  description: 'Which rule changed which fields of which transaction, newest first.',
  scope: 'read:rules',
  args: ListRuleApplicationsArgsSchema,
  async run(db, args, ctx): Promise<{ items: RuleApplication[] }> {
    let query = db.selectFrom('rule_applications').selectAll().where('household_id', '=', ctx.householdId)
    if (args.ruleId !== undefined) query = query.where('rule_id', '=', args.ruleId)
    if (args.transactionId !== undefined) query = query.where('transaction_id', '=', args.transactionId)
    const rows = await query
      .orderBy('applied_at', 'desc')
      .orderBy('id', 'desc')
      .limit(MAX_APPLICATIONS)
      .execute()
    return { items: rows.map(toRuleApplication) }
  },
})
