import type { ColumnType, Selectable } from 'kysely'
import type { RuleChanges } from './classify.ts'
import type { Action, Predicate } from './schema.ts'

type Timestamp = ColumnType<Date, Date | string, Date | string>

/** A classification rule: a predicate over a transaction and the action taken when it holds. */
export interface RulesTable {
  household_id: string
  id: string
  name: string
  predicate: ColumnType<Predicate, string, string>
  action: ColumnType<Action, string, string>
  enabled: boolean
  /** Lower runs first; ties run in creation order. */
  priority: number
  /** Made by learning (rules/learn.ts) and not changed by anyone since. */
  learned: ColumnType<boolean, boolean | undefined, boolean>
  created_at: Timestamp
  updated_at: Timestamp
  deleted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
}

/** How a rule came to change a row: as it was created or imported (auto), or by apply (manual). */
export type RuleTrigger = 'auto' | 'manual'

/** One rule changing one row: which fields, from what to what, and when. */
export interface RuleApplicationsTable {
  household_id: string
  id: string
  rule_id: string
  transaction_id: string
  trigger: RuleTrigger
  changes: ColumnType<RuleChanges, string, string>
  applied_at: Timestamp
}

/**
 * One rule changing rows the same way in one back-fill (`apply`, `apply-all`): which rows, which
 * fields, from what to what, and when (migrations/0015-rule-runs.ts).
 */
export interface RuleRunsTable {
  household_id: string
  id: string
  rule_id: string
  changes: ColumnType<RuleChanges, string, string>
  transaction_ids: string[]
  applied_at: Timestamp
}

/** The rules domain's tables. */
export type RuleTables = {
  rules: RulesTable
  rule_applications: RuleApplicationsTable
  rule_runs: RuleRunsTable
}

export type RuleRow = Selectable<RulesTable>
export type RuleApplicationRow = Selectable<RuleApplicationsTable>
