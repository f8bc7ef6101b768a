import type { OperationTree } from '../mutator/registry.ts'

/** The rules domain's operations (issue 12). */
export const ruleOperations = {} satisfies OperationTree
