import type { OperationTree } from '../mutator/registry.ts'
import { applyAllRules, applyRule, createRule, deleteRule, updateRule } from './mutators.ts'
import { getRule, listRuleApplications, listRules, previewRule } from './queries.ts'

/** The rules domain's operations by noun and verb; the registry names each after its path. */
export const ruleOperations = {
  rules: {
    applications: listRuleApplications,
    apply: applyRule,
    applyAll: applyAllRules,
    create: createRule,
    delete: deleteRule,
    get: getRule,
    list: listRules,
    preview: previewRule,
    update: updateRule,
  },
} satisfies OperationTree
