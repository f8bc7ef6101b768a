import type { RuleChanges } from './classify.ts'
import type { Action, Condition, Predicate } from './schema.ts'
import type { RuleApplicationRow, RuleRow, RuleTrigger } from './tables.ts'

/** A condition as the API shows it: amounts as decimal integer strings of cents. */
export interface RuleConditionView {
  field: Condition['field']
  op: string
  value: unknown
}

/** A rule as the API shows it. */
export interface Rule {
  id: string
  name: string
  predicate: { combinator: Predicate['combinator']; conditions: RuleConditionView[] }
  action: Action
  enabled: boolean
  priority: number
  /** Learned from how the household categorizes a payee, and not changed since. */
  learned: boolean
  createdAt: string
  updatedAt: string
}

/** A record of one rule changing one transaction. */
export interface RuleApplication {
  id: string
  ruleId: string
  transactionId: string
  trigger: RuleTrigger
  changes: RuleChanges
  appliedAt: string
}

/** A predicate as the API shows it: cents as decimal integer strings, as in every response body. */
function presentPredicate(predicate: Predicate): Rule['predicate'] {
  return {
    combinator: predicate.combinator,
    conditions: predicate.conditions.map((c) => {
      if (c.field !== 'amount' && c.field !== 'inflow' && c.field !== 'outflow') return c
      const value =
        c.op === 'between' ? { min: String(c.value.min), max: String(c.value.max) } : String(c.value)
      return { ...c, value }
    }),
  }
}

export function toRule(row: RuleRow): Rule {
  return {
    id: row.id,
    name: row.name,
    predicate: presentPredicate(row.predicate),
    action: row.action,
    enabled: row.enabled,
    priority: row.priority,
    learned: row.learned,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

export function toRuleApplication(row: RuleApplicationRow): RuleApplication {
  return {
    id: row.id,
    ruleId: row.rule_id,
    transactionId: row.transaction_id,
    trigger: row.trigger,
    changes: row.changes,
    appliedAt: row.applied_at.toISOString(),
  }
}
