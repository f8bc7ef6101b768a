import { z } from 'zod'
import { PayeeSchema } from './catalog.ts'

const Instant = z.string().describe('ISO 8601 instant in UTC.')
const Similarity = z
  .number()
  .describe('Cosine similarity of the two names, from 0 to 1, rounded to 6 places.')

export const PayeePageSchema = z
  .object({
    items: z.array(PayeeSchema),
    page: z.number().int().describe('The page answered, from 1.'),
    pageSize: z.number().int().describe('10, 25, 50 or 100.'),
    total: z.number().int().describe('How many payees match the filters, over all pages.'),
    pageCount: z.number().int().describe('How many pages `total` fills; 0 when nothing matches.'),
  })
  .meta({ id: 'PayeePage', description: 'One page of live payees by normalized name, then id.' })

export const PayeeAliasSchema = z
  .object({
    id: z.string(),
    payeeId: z.string(),
    name: z.string().describe('The spelling as given.'),
    normalizedName: z
      .string()
      .describe('The folded form (a regex keeps its own text); unique among live aliases of one `match`.'),
    match: z
      .enum(['exact', 'startsWith', 'contains', 'regex'])
      .describe(
        'How a payee name matches: it is this spelling, or its normalized form starts with it, contains it, or matches it as an RE2 regex (case-insensitive).',
      ),
    createdAt: Instant,
    updatedAt: Instant,
  })
  .meta({ id: 'PayeeAlias' })

export const PayeeAliasListSchema = z
  .object({ items: z.array(PayeeAliasSchema) })
  .meta({ id: 'PayeeAliasList', description: 'Ordered by normalized name, then id.' })

export const PayeeMergeSchema = z
  .object({
    id: z.string().describe('The merge record; `mergeId` in the request.'),
    sourcePayeeId: z.string().describe('The payee merged away (soft-deleted until an unmerge).'),
    targetPayeeId: z.string().describe('The payee that took its rows.'),
    transactionIds: z.array(z.string()).describe('Exactly the transactions whose payee moved, by id.'),
    splitIds: z.array(z.string()).describe('Exactly the splits whose payee moved, by id.'),
    movedAliasIds: z.array(z.string()).describe('The source’s aliases now on the target.'),
    droppedAliasIds: z
      .array(z.string())
      .describe('The source’s aliases that spelled one of the target’s names, soft-deleted.'),
    createdAliasId: z
      .string()
      .nullable()
      .describe('The alias of the target made from the source’s name; null when the target already had it.'),
    createdAt: Instant,
    unmergedAt: Instant.nullable().describe('When the merge was undone; null while it stands.'),
  })
  .meta({ id: 'PayeeMerge' })

export const PayeeMergeListSchema = z
  .object({ items: z.array(PayeeMergeSchema) })
  .meta({ id: 'PayeeMergeList', description: 'Newest first.' })

export const PayeeMergeResultSchema = z
  .object({ merge: PayeeMergeSchema, target: PayeeSchema.describe('The payee that now holds everything.') })
  .meta({ id: 'PayeeMergeResult' })

export const PayeeUnmergeResultSchema = z
  .object({
    merge: PayeeMergeSchema.describe('The merge record, now with `unmergedAt`.'),
    payee: PayeeSchema.describe('The revived source payee.'),
    skippedTransactionIds: z
      .array(z.string())
      .describe('Recorded transactions whose payee changed again after the merge; left as they are.'),
  })
  .meta({ id: 'PayeeUnmergeResult' })

export const PayeeDuplicateGroupsSchema = z
  .object({
    items: z.array(
      z.object({ payees: z.array(PayeeSchema).describe('Two or more payees, by normalized name, then id.') }),
    ),
    threshold: z.number().describe('The similarity at or above which two names are near-duplicates: 0.9.'),
  })
  .meta({ id: 'PayeeDuplicateGroups' })

export const PayeeDedupeCandidatesSchema = z
  .object({
    items: z.array(z.object({ payee: PayeeSchema, similarity: Similarity })),
    threshold: z.number().describe('The similarity at or above which two names are near-duplicates: 0.9.'),
  })
  .meta({ id: 'PayeeDedupeCandidates', description: 'Most similar first, then by normalized name and id.' })

export const RejectedCategoryListSchema = z
  .object({ items: z.array(z.object({ categoryId: z.string(), createdAt: Instant })) })
  .meta({ id: 'RejectedCategoryList', description: 'Oldest first.' })
