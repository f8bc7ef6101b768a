import type { OperationTree } from '../mutator/registry.ts'

/** Payee aliases, merges and near-duplicates (issue 12). */
export const payeeOperations = {} satisfies OperationTree
