import { z } from 'zod'
import { CentsSchema, DateSchema, NameSchema, UlidSchema } from '../../shared/schema.ts'
import {
  commaListSchema,
  idSetSchema,
  QueryBooleanSchema,
  queryIntSchema,
  queryLimitSchema,
  RefIdSchema,
} from '../schema.ts'

export const TransactionStatusSchema = z.enum(['pending', 'cleared', 'reconciled'])
export const TransactionSourceSchema = z.enum(['manual', 'imported', 'ai', 'recurring', 'split'])

/** Free text on a row or split: trimmed, empty means none. */
export const MemoSchema = z
  .string()
  .max(1000)
  .transform((s) => (s.trim() === '' ? null : s.trim()))

/** A bank's own id for a row, unique per account among live rows. */
export const ImportedIdSchema = z.string().trim().min(1).max(200)

/** The payee text a bank sent with a row, kept untouched (not trimmed: it is the bank's). */
export const ImportedPayeeSchema = z.string().min(1).max(500)

/** Most tags and flags one row may carry. */
export const MAX_TAGS_PER_TRANSACTION = 50
export const MAX_FLAGS_PER_TRANSACTION = 20
/** Most parts one split may have. */
export const MAX_SPLITS = 100

export const SplitInputSchema = z.strictObject({
  amountCents: CentsSchema,
  categoryId: RefIdSchema.nullish(),
  payeeId: RefIdSchema.nullish(),
  memo: MemoSchema.nullish(),
})
export type SplitInput = z.output<typeof SplitInputSchema>

/** No parts (a plain row) or two to 100 parts; one part would only repeat its parent. */
export const SplitsSchema = z
  .array(SplitInputSchema)
  .max(MAX_SPLITS)
  .refine((s) => s.length !== 1, 'A split needs at least two parts; send an empty list for none.')

function payeeEitherWay(v: { payeeId?: string | null; payeeName?: string }): boolean {
  return !(v.payeeId && v.payeeName !== undefined)
}
const PAYEE_EITHER_WAY = { message: 'Send payeeId or payeeName, not both.', path: ['payeeName'] }

/** One new row, as POST H/transactions takes it and as each item of a bulk create. */
export const TransactionInputSchema = z
  .strictObject({
    id: UlidSchema,
    accountId: RefIdSchema,
    date: DateSchema,
    amountCents: CentsSchema,
    payeeId: RefIdSchema.nullish(),
    /** Finds the payee by normalized name, or creates it. */
    payeeName: NameSchema.optional(),
    categoryId: RefIdSchema.nullish(),
    memo: MemoSchema.nullish(),
    /** Default: cleared for imported rows, pending otherwise; rows become reconciled only by reconcile. */
    status: z.enum(['pending', 'cleared']).optional(),
    /** Default: imported when importedId is given, else manual. */
    source: TransactionSourceSchema.optional(),
    importedId: ImportedIdSchema.nullish(),
    /** The payee text the bank sent, kept as it came; default on an imported row: its `payeeName`. */
    importedPayee: ImportedPayeeSchema.nullish(),
    needsReview: z.boolean().optional(),
    splits: SplitsSchema.optional(),
    tagIds: idSetSchema(MAX_TAGS_PER_TRANSACTION).optional(),
    flagIds: idSetSchema(MAX_FLAGS_PER_TRANSACTION).optional(),
  })
  .refine(payeeEitherWay, PAYEE_EITHER_WAY)
export type TransactionInput = z.output<typeof TransactionInputSchema>

export const CreateTransactionArgsSchema = TransactionInputSchema
export type CreateTransactionArgs = TransactionInput

/** PATCH H/transactions/{id}: supplying splits, tagIds or flagIds replaces them. */
export const UpdateTransactionArgsSchema = z
  .strictObject({
    id: RefIdSchema,
    accountId: RefIdSchema.optional(),
    date: DateSchema.optional(),
    amountCents: CentsSchema.optional(),
    payeeId: RefIdSchema.nullable().optional(),
    payeeName: NameSchema.optional(),
    categoryId: RefIdSchema.nullable().optional(),
    memo: MemoSchema.nullable().optional(),
    /** `cleared` unlocks a reconciled row; `reconciled` is only accepted on a row that already is. */
    status: TransactionStatusSchema.optional(),
    needsReview: z.boolean().optional(),
    splits: SplitsSchema.optional(),
    tagIds: idSetSchema(MAX_TAGS_PER_TRANSACTION).optional(),
    flagIds: idSetSchema(MAX_FLAGS_PER_TRANSACTION).optional(),
  })
  .refine(payeeEitherWay, PAYEE_EITHER_WAY)
export type UpdateTransactionArgs = z.output<typeof UpdateTransactionArgsSchema>

/** Path-only arguments: get, delete, accept/reject suggestion, dismiss-match, unmatch, unlink. */
export const TransactionIdArgsSchema = z.strictObject({ id: RefIdSchema })
export type TransactionIdArgs = z.output<typeof TransactionIdArgsSchema>

/** DELETE H/transactions/{id}/tags/{tagId}. */
export const RemoveTransactionTagArgsSchema = z.strictObject({ id: RefIdSchema, tagId: RefIdSchema })
export type RemoveTransactionTagArgs = z.output<typeof RemoveTransactionTagArgsSchema>

/** POST H/transactions/transfer: money leaves one account and arrives in another; leg ids come from the caller. */
export const CreateTransferArgsSchema = z.strictObject({
  fromAccountId: RefIdSchema,
  toAccountId: RefIdSchema,
  /** What moves, positive: the from leg gets -amountCents, the to leg +amountCents. */
  amountCents: CentsSchema.refine(
    (n) => n > 0,
    'Must be positive; swap the accounts to move money the other way.',
  ),
  date: DateSchema,
  memo: MemoSchema.nullish(),
  status: z.enum(['pending', 'cleared']).optional(),
  tagIds: idSetSchema(MAX_TAGS_PER_TRANSACTION).optional(),
  flagIds: idSetSchema(MAX_FLAGS_PER_TRANSACTION).optional(),
  fromTransactionId: UlidSchema,
  toTransactionId: UlidSchema,
})
export type CreateTransferArgs = z.output<typeof CreateTransferArgsSchema>

/** POST H/transactions/{id}/link-transfer. */
export const LinkTransferArgsSchema = z.strictObject({ id: RefIdSchema, counterpartId: RefIdSchema })
export type LinkTransferArgs = z.output<typeof LinkTransferArgsSchema>

/** Default and bounds of a transactions page. */
export const LIST_DEFAULT_LIMIT = 50
export const LIST_MAX_LIMIT = 100
/** Most flag or tag ids one list filter may name. */
export const LIST_MAX_FILTER_IDS = 20

/** GET H/transactions: every query parameter of the spec, as strings or as JSON values. */
export const ListTransactionsArgsSchema = z.strictObject({
  limit: queryLimitSchema(LIST_MAX_LIMIT)
    .default(LIST_DEFAULT_LIMIT)
    .meta({
      description: `Rows per page, from 1 (default ${LIST_DEFAULT_LIMIT}); above ${LIST_MAX_LIMIT} reads as ${LIST_MAX_LIMIT}.`,
    }),
  cursor: z.string().max(500).optional(),
  minAmountCents: CentsSchema.optional(),
  maxAmountCents: CentsSchema.optional(),
  search: z.string().trim().max(200).optional(),
  dateFrom: DateSchema.optional(),
  dateTo: DateSchema.optional(),
  source: TransactionSourceSchema.optional(),
  status: TransactionStatusSchema.optional(),
  /** Any of these; supersedes `status`. */
  statuses: commaListSchema(TransactionStatusSchema, 3).optional(),
  attention: QueryBooleanSchema.optional(),
  uncategorized: QueryBooleanSchema.optional(),
  needsReview: QueryBooleanSchema.optional(),
  hasFlag: QueryBooleanSchema.optional(),
  flagIds: commaListSchema(RefIdSchema, LIST_MAX_FILTER_IDS).optional(),
  hasTag: QueryBooleanSchema.optional(),
  tagMode: z.enum(['any', 'all']).optional(),
  tagIds: commaListSchema(RefIdSchema, LIST_MAX_FILTER_IDS).optional(),
  /** One more tag id, combined with `tagIds`. */
  tagId: RefIdSchema.optional(),
  payeeId: RefIdSchema.optional(),
  categoryId: RefIdSchema.optional(),
  accountId: RefIdSchema.optional(),
})
export type ListTransactionsArgs = z.output<typeof ListTransactionsArgsSchema>

/** A category suggestion for an uncategorized row, recorded by rules or the assistant (no REST route). */
export const SuggestCategoryArgsSchema = z.strictObject({
  id: RefIdSchema,
  categoryId: RefIdSchema,
  confidence: z.number().min(0).max(1).nullish(),
  reason: z.string().trim().min(1).max(500).nullish(),
})
export type SuggestCategoryArgs = z.output<typeof SuggestCategoryArgsSchema>

/** Most rows one bulk create or bulk update may touch. */
export const BULK_MAX = 500

/** POST H/transactions/bulk: up to 500 new rows, all or none. */
export const BulkCreateTransactionsArgsSchema = z.strictObject({
  transactions: z
    .array(TransactionInputSchema)
    .min(1)
    .max(BULK_MAX, `At most ${BULK_MAX} transactions per request.`),
})
export type BulkCreateTransactionsArgs = z.output<typeof BulkCreateTransactionsArgsSchema>

/** The one patch a bulk update applies to every listed row. */
export const BulkPatchSchema = z
  .strictObject({
    categoryId: RefIdSchema.nullable().optional(),
    status: TransactionStatusSchema.optional(),
    memo: MemoSchema.nullable().optional(),
    payeeId: RefIdSchema.nullable().optional(),
    /** Replaces the rows' flags. */
    flagIds: idSetSchema(MAX_FLAGS_PER_TRANSACTION).optional(),
    addTagIds: idSetSchema(MAX_TAGS_PER_TRANSACTION).optional(),
    removeTagIds: idSetSchema(MAX_TAGS_PER_TRANSACTION).optional(),
  })
  .refine((p) => Object.values(p).some((v) => v !== undefined), 'The patch changes nothing.')

/** PATCH H/transactions/bulk-update. */
export const BulkUpdateTransactionsArgsSchema = z.strictObject({
  ids: z
    .array(RefIdSchema)
    .min(1)
    .max(BULK_MAX, `At most ${BULK_MAX} ids per request.`)
    .refine((ids) => new Set(ids).size === ids.length, 'Ids must not repeat.'),
  patch: BulkPatchSchema,
})
export type BulkUpdateTransactionsArgs = z.output<typeof BulkUpdateTransactionsArgsSchema>

/** POST H/transactions/{id}/match: the row of the other kind to match with. */
export const MatchTransactionArgsSchema = z.strictObject({ id: RefIdSchema, candidateId: RefIdSchema })
export type MatchTransactionArgs = z.output<typeof MatchTransactionArgsSchema>

/** Longest daily-summary window, in days. */
export const DAILY_SUMMARY_MAX_DAYS = 92

/** GET H/transactions/daily-summary?fromDate&toDate&accountId. */
export const DailySummaryArgsSchema = z.strictObject({
  /** Default: 29 days before toDate. */
  fromDate: DateSchema.optional(),
  /** Default: the caller's local day. */
  toDate: DateSchema.optional(),
  accountId: RefIdSchema.optional(),
})
export type DailySummaryArgs = z.output<typeof DailySummaryArgsSchema>

/** GET H/transactions/stale-pending-count?days&accountId. */
export const StalePendingCountArgsSchema = z.strictObject({
  days: queryIntSchema(0, 3650).default(7),
  accountId: RefIdSchema.optional(),
})
export type StalePendingCountArgs = z.output<typeof StalePendingCountArgsSchema>
