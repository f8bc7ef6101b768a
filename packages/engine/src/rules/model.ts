import type { RuleChanges } from './classify.ts'
import type { Action, Predicate } from './schema.ts'
import type { RuleApplicationRow, RuleRow, RuleTrigger } from './tables.ts'

/** A rule as the API shows it. */
export interface Rule {
  id: string
  name: string
  predicate: Predicate
  action: Action
  enabled: boolean
  priority: number
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

export function toRule(row: RuleRow): Rule {
  return {
    id: row.id,
    name: row.name,
    predicate: row.predicate,
    action: row.action,
    enabled: row.enabled,
    priority: row.priority,
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
