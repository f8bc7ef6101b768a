import { z } from 'zod'
import { MonthSchema } from '../budgets/month.ts'
import { queryLimitSchema, RefIdSchema } from '../ledger/schema.ts'
import { DateSchema } from '../shared/schema.ts'

/** Rows per page of the activity: 50 unless asked, at most 100. */
export const ACTIVITY_DEFAULT_LIMIT = 50
export const ACTIVITY_MAX_LIMIT = 100

/** GET H/activity: newest first, narrowed by any of these filters (all must match). */
export const ListActivityArgsSchema = z.strictObject({
  limit: queryLimitSchema(ACTIVITY_MAX_LIMIT)
    .default(ACTIVITY_DEFAULT_LIMIT)
    .meta({
      description: `Entries per page, from 1 (default ${ACTIVITY_DEFAULT_LIMIT}); above ${ACTIVITY_MAX_LIMIT} reads as ${ACTIVITY_MAX_LIMIT}.`,
    }),
  cursor: z.string().max(300).optional(),
  /** Entries by this member (whatever key, device or session they used). */
  memberId: RefIdSchema.optional(),
  /** Entries that changed this transaction, or one of its splits, tags or flags. */
  transactionId: RefIdSchema.optional(),
  /** Entries that changed this account or a row in it. */
  accountId: RefIdSchema.optional(),
  /** Entries that changed this category or a row in it; with `month`, one budget cell's history. */
  categoryId: RefIdSchema.optional(),
  /** Entries that changed a row of this month (a budget cell, a transaction dated in it). */
  month: MonthSchema.optional(),
  /** Entries of this operation, by its registry name (`budgets.move`). */
  operation: z.string().min(1).max(100).optional(),
  /** Entries on or after this day, in the household's time zone. */
  dateFrom: DateSchema.optional(),
  /** Entries on or before this day, in the household's time zone. */
  dateTo: DateSchema.optional(),
})
export type ListActivityArgs = z.output<typeof ListActivityArgsSchema>

/** POST H/activity/undo: undo one entry, or without `entryId` the caller's own last change. */
export const UndoActivityArgsSchema = z.strictObject({
  entryId: RefIdSchema.optional(),
})
export type UndoActivityArgs = z.output<typeof UndoActivityArgsSchema>

/**
 * A device's undo of one of its own mutations, pending or confirmed, by the device's id of it:
 * the device restores its own images at once, offline too; the server undoes the mutation's
 * activity entry when the push arrives.
 */
export const UndoMutationArgsSchema = z.strictObject({
  mutationId: z.number().int().positive(),
})
export type UndoMutationArgs = z.output<typeof UndoMutationArgsSchema>
