import { z } from 'zod'
import { RefIdSchema } from '../ledger/schema.ts'
import { CentsSchema, UlidSchema } from '../shared/schema.ts'
import { MonthSchema } from './month.ts'

/**
 * The id of the history entry a change writes. REST fills it; a syncing device may leave it out,
 * and the entry is then named after the device and its mutation id, the same on both replicas.
 */
const HistoryIdSchema = UlidSchema.optional()

export const BudgetMonthArgsSchema = z.strictObject({ month: MonthSchema })
export type BudgetMonthArgs = z.output<typeof BudgetMonthArgsSchema>

export const BudgetCategoryArgsSchema = z.strictObject({ month: MonthSchema, categoryId: RefIdSchema })
export type BudgetCategoryArgs = z.output<typeof BudgetCategoryArgsSchema>

export const AssignArgsSchema = z.strictObject({
  month: MonthSchema,
  categoryId: RefIdSchema,
  /** What the category receives that month, replacing what it had. */
  assignedCents: CentsSchema.optional(),
  /** Cash overspending stays in the category, month after month, instead of coming out of Ready to Assign. */
  carryOverspending: z.boolean().optional(),
  historyId: HistoryIdSchema,
})
export type AssignArgs = z.output<typeof AssignArgsSchema>

export const MoveArgsSchema = z.strictObject({
  month: MonthSchema,
  fromCategoryId: RefIdSchema,
  toCategoryId: RefIdSchema,
  amountCents: CentsSchema.refine((n) => n > 0, 'Must be positive; swap the categories to move money back.'),
  historyId: HistoryIdSchema,
})
export type MoveArgs = z.output<typeof MoveArgsSchema>

export const CopyFromArgsSchema = z.strictObject({
  month: MonthSchema,
  sourceMonth: MonthSchema,
  historyId: HistoryIdSchema,
})
export type CopyFromArgs = z.output<typeof CopyFromArgsSchema>

export const ResetArgsSchema = z.strictObject({ month: MonthSchema, historyId: HistoryIdSchema })
export type ResetArgs = z.output<typeof ResetArgsSchema>

export const AutoAssignArgsSchema = z.strictObject({ month: MonthSchema, historyId: HistoryIdSchema })
export type AutoAssignArgs = z.output<typeof AutoAssignArgsSchema>

export const DeleteCategoryArgsSchema = z.strictObject({
  month: MonthSchema,
  categoryId: RefIdSchema,
  /** The category that takes what the deleted one holds in the month (or covers what it overspent). */
  moveToCategoryId: RefIdSchema,
  historyId: HistoryIdSchema,
})
export type DeleteCategoryArgs = z.output<typeof DeleteCategoryArgsSchema>
