import { createPayee, deletePayee, updatePayee } from '../catalog/mutators/payees.ts'
import { listPayees } from '../catalog/queries.ts'
import type { OperationTree } from '../mutator/registry.ts'
import { getPayee } from './merged-payee.ts'
import { createPayeeAlias, deletePayeeAlias } from './mutators/aliases.ts'
import { mergePayee, unmergePayee } from './mutators/merge.ts'
import {
  listPayeeAliases,
  listPayeeMerges,
  listRejectedCategories,
  payeeDedupeCandidates,
  payeeDuplicateGroups,
  payeePage,
} from './queries.ts'

/**
 * The payees noun: the catalog's create, read, update and delete of a payee, plus the payees
 * domain's pages, aliases, merges and near-duplicates. The noun lives here, whole, so every
 * payee operation is found in one map.
 */
export const payeeOperations = {
  payees: {
    create: createPayee,
    createAlias: createPayeeAlias,
    dedupeCandidates: payeeDedupeCandidates,
    delete: deletePayee,
    deleteAlias: deletePayeeAlias,
    duplicateGroups: payeeDuplicateGroups,
    get: getPayee,
    list: listPayees,
    listAliases: listPayeeAliases,
    listMerges: listPayeeMerges,
    merge: mergePayee,
    page: payeePage,
    rejectedCategories: listRejectedCategories,
    unmerge: unmergePayee,
    update: updatePayee,
  },
} satisfies OperationTree
