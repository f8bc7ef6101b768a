import {
  PayeeAliasListSchema,
  PayeeAliasSchema,
  PayeeDedupeCandidatesSchema,
  PayeeDuplicateGroupsSchema,
  PayeeListSchema,
  PayeeMergeListSchema,
  PayeeMergeResultSchema,
  PayeePageSchema,
  PayeeSchema,
  PayeeUnmergeResultSchema,
  RejectedCategoryListSchema,
} from '@hearth/contracts'
import { operations } from '@hearth/engine'
import { operationRoute } from '../http/operation-route.ts'

const tag = 'Payees'
const payees = '/households/{householdId}/payees'
const payee = `${payees}/{payeeId}`

/**
 * Payee CRUD, pages, aliases, merges and near-duplicates. The fixed paths (`page`,
 * `duplicate-groups`) come before `{payeeId}`, so they are routes, never ids.
 */
export const payeeRoutes = [
  operationRoute(operations.payees.create, {
    method: 'post',
    path: payees,
    status: 201,
    tag,
    clientIds: ['id'],
    response: PayeeSchema,
    responseDescription: 'The new payee.',
    notes: 'No two live payees may share a normalized name (409 `PAYEE_NAME_TAKEN`).',
    errors: { 409: ['PAYEE_NAME_TAKEN', 'ID_ALREADY_EXISTS'] },
  }),
  operationRoute(operations.payees.list, {
    method: 'get',
    path: payees,
    status: 200,
    tag,
    response: PayeeListSchema,
    responseDescription: 'The payees.',
    notes: 'Every live payee, by normalized name, then id. Not paginated.',
  }),
  operationRoute(operations.payees.page, {
    method: 'get',
    path: `${payees}/page`,
    status: 200,
    tag,
    response: PayeePageSchema,
    responseDescription: 'One page of payees, with the total.',
    notes:
      'All optional: `sort` nameAsc (default) or nameDesc, by normalized name then id; `categoryId` (payees defaulting to it); `segment` all (default) or noCategory (no default category; not with `categoryId`); `q`, folded like names, matched anywhere in the name or an alias; `pageSize` 10, 25 (default), 50 or 100, anything else 400; `page` from 1 (default 1), a page past the end answers no items.',
  }),
  operationRoute(operations.payees.duplicateGroups, {
    method: 'get',
    path: `${payees}/duplicate-groups`,
    status: 200,
    tag,
    response: PayeeDuplicateGroupsSchema,
    responseDescription: 'The near-duplicate clusters.',
    notes:
      'Live payees linked by name similarity of at least 0.9 (cosine over consonant-skeleton bigrams, see docs/payees.md), grouped transitively; payees with no near-duplicate are left out.',
  }),
  operationRoute(operations.payees.get, {
    method: 'get',
    path: payee,
    status: 200,
    tag,
    response: PayeeSchema,
    responseDescription: 'The payee.',
    notes:
      'A payee merged into another answers 404 `PAYEE_MERGED` with `mergedInto`, the id of the live payee it went into (followed through later merges); an unknown or deleted payee is 404 `NOT_FOUND`.',
    errors: { 404: ['NOT_FOUND', 'PAYEE_MERGED'] },
  }),
  operationRoute(operations.payees.update, {
    method: 'patch',
    path: payee,
    status: 200,
    tag,
    response: PayeeSchema,
    responseDescription: 'The updated payee.',
    notes: 'A rename recomputes `normalizedName`. `categoryId: null` clears the default category.',
    errors: { 409: ['PAYEE_NAME_TAKEN'] },
  }),
  operationRoute(operations.payees.delete, {
    method: 'delete',
    path: payee,
    status: 204,
    tag,
    notes: 'Soft delete. Transactions keep it; its name is free for a new payee.',
  }),
  operationRoute(operations.payees.listAliases, {
    method: 'get',
    path: `${payee}/aliases`,
    status: 200,
    tag,
    response: PayeeAliasListSchema,
    responseDescription: "The payee's aliases.",
  }),
  operationRoute(operations.payees.createAlias, {
    method: 'post',
    path: `${payee}/aliases`,
    status: 201,
    tag,
    params: { payeeId: 'payeeId' },
    clientIds: ['id'],
    response: PayeeAliasSchema,
    responseDescription: 'The alias (the existing one when the payee already had this spelling).',
    notes:
      'Body `{id?, name, match?}`; `match` is `exact` (default), `startsWith`, `contains` or `regex` (RE2, refused with 400 when RE2 cannot run it, as in rules). Deduplicated by normalized form and match: a spelling the payee already has answers its alias, unchanged. A spelling that is a live payee’s name or another payee’s alias is 409 `PAYEE_ALIAS_TAKEN`. A transaction created or imported with a `payeeName` that no live payee bears but an alias matches gets the alias’s payee (exact aliases first, then patterns, oldest first).',
    errors: { 409: ['PAYEE_ALIAS_TAKEN', 'ID_ALREADY_EXISTS'] },
  }),
  operationRoute(operations.payees.deleteAlias, {
    method: 'delete',
    path: `${payee}/aliases/{aliasId}`,
    status: 204,
    tag,
    notes: 'Soft delete. Transactions it attributed keep their payee.',
  }),
  operationRoute(operations.payees.merge, {
    method: 'post',
    path: `${payee}/merge`,
    status: 200,
    tag,
    clientIds: ['mergeId'],
    response: PayeeMergeResultSchema,
    responseDescription: 'The merge record and the target payee.',
    notes:
      "Body `{targetPayeeId, mergeId?}`. In one transaction: every transaction and split of this payee (deleted rows too) moves to the target, its aliases follow (one spelling the target's name is dropped), its own name becomes an alias of the target, and it is soft-deleted. The target keeps its own default category. The record lists exactly what moved.",
    errors: { 409: ['ID_ALREADY_EXISTS'] },
  }),
  operationRoute(operations.payees.unmerge, {
    method: 'post',
    path: `${payee}/unmerge`,
    status: 200,
    tag,
    optionalBody: true,
    response: PayeeUnmergeResultSchema,
    responseDescription: 'The undone merge, the revived payee and the rows left alone.',
    notes:
      "Undoes this payee's latest merge in one transaction: the recorded transactions and splits that still point at the target move back (rows untouched since also get their old `updatedAt`), moved aliases return, dropped ones revive, the alias made from its name goes, and the payee is live again. 409 `PAYEE_NOT_MERGED` when it was not merged, `PAYEE_MERGE_CHAINED` when the target was itself merged or deleted since, `PAYEE_NAME_TAKEN` when a live payee took its name.",
    errors: { 409: ['PAYEE_NOT_MERGED', 'PAYEE_MERGE_CHAINED', 'PAYEE_NAME_TAKEN'] },
  }),
  operationRoute(operations.payees.listMerges, {
    method: 'get',
    path: `${payee}/merges`,
    status: 200,
    tag,
    response: PayeeMergeListSchema,
    responseDescription: 'The merges this payee took part in.',
    notes: 'As source or target, undone ones too, newest first. Answers for a merged-away payee as well.',
  }),
  operationRoute(operations.payees.dedupeCandidates, {
    method: 'get',
    path: `${payee}/dedupe-candidates`,
    status: 200,
    tag,
    response: PayeeDedupeCandidatesSchema,
    responseDescription: 'Payees whose names are near-duplicates of this one.',
    notes: 'Live payees with name similarity at least 0.9, most similar first (see docs/payees.md).',
  }),
  operationRoute(operations.payees.rejectedCategories, {
    method: 'get',
    path: `${payee}/rejected-categories`,
    status: 200,
    tag,
    response: RejectedCategoryListSchema,
    responseDescription: 'The categories never suggested again for this payee.',
    notes: 'A category lands here when a suggestion of it, on a row with this payee, is rejected.',
  }),
]
