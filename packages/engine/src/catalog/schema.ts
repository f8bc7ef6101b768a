import { z } from 'zod'
import { NameSchema, UlidSchema } from '../shared/schema.ts'
import { CategoryGoalSchema } from './category-goal.ts'
import { ColorSchema, PathIdSchema, PositionSchema } from './fields.ts'

// Category groups.

export const CreateCategoryGroupArgsSchema = z.strictObject({
  id: UlidSchema,
  name: NameSchema,
  /** Omitted: after the last live group. */
  position: PositionSchema.optional(),
  hidden: z.boolean().optional(),
  isIncome: z.boolean().optional(),
})
export type CreateCategoryGroupArgs = z.output<typeof CreateCategoryGroupArgsSchema>

export const UpdateCategoryGroupArgsSchema = z.strictObject({
  id: PathIdSchema,
  name: NameSchema.optional(),
  position: PositionSchema.optional(),
  hidden: z.boolean().optional(),
  isIncome: z.boolean().optional(),
})
export type UpdateCategoryGroupArgs = z.output<typeof UpdateCategoryGroupArgsSchema>

// Categories.

export const CreateCategoryArgsSchema = z.strictObject({
  id: UlidSchema,
  groupId: UlidSchema,
  name: NameSchema,
  /** Omitted: after the last live category of the group. */
  position: PositionSchema.optional(),
  hidden: z.boolean().optional(),
  /** The budget goal; omitted or null: none. */
  goal: CategoryGoalSchema.nullable().optional(),
  /** Cash overspending carries into next month in the category (from every month on); default false. */
  carryOverspending: z.boolean().optional(),
})
export type CreateCategoryArgs = z.output<typeof CreateCategoryArgsSchema>

export const UpdateCategoryArgsSchema = z.strictObject({
  id: PathIdSchema,
  name: NameSchema.optional(),
  /** Moves the category; without a position it goes after the last category of its new group. */
  groupId: UlidSchema.optional(),
  position: PositionSchema.optional(),
  hidden: z.boolean().optional(),
  /** Replaces the goal whole; null removes it. */
  goal: CategoryGoalSchema.nullable().optional(),
  /** Cash overspending carries into next month in the category (from every month on). */
  carryOverspending: z.boolean().optional(),
})
export type UpdateCategoryArgs = z.output<typeof UpdateCategoryArgsSchema>

/**
 * `include: 'deleted'` adds deleted rows, each with `deletedAt`: rows that keep a deleted
 * payee's or category's id still show its name (marked as deleted).
 */
export const IncludeDeletedSchema = z
  .enum(['deleted'])
  .optional()
  .describe(
    '`deleted` also lists deleted ones, each with `deletedAt`, to name what older rows still point to.',
  )

export const ListCategoriesArgsSchema = z.strictObject({
  groupId: UlidSchema.optional(),
  include: IncludeDeletedSchema,
})

export const ListPayeesArgsSchema = z.strictObject({ include: IncludeDeletedSchema })
export type ListCategoriesArgs = z.output<typeof ListCategoriesArgsSchema>

/** The most categories one reorder may place; far above any real household. */
export const REORDER_MAX_ITEMS = 1000

export const ReorderCategoriesArgsSchema = z.strictObject({
  items: z
    .array(
      z.strictObject({
        id: UlidSchema,
        /** Omitted: the category stays in its group. */
        groupId: UlidSchema.optional(),
        position: PositionSchema,
      }),
    )
    .min(1, 'Give at least one category.')
    .max(REORDER_MAX_ITEMS, `Give at most ${REORDER_MAX_ITEMS} categories.`),
})
export type ReorderCategoriesArgs = z.output<typeof ReorderCategoriesArgsSchema>

// Payees.

export const CreatePayeeArgsSchema = z.strictObject({
  id: UlidSchema,
  name: NameSchema,
  /** The category new transactions with this payee default to. */
  categoryId: UlidSchema.nullish(),
})
export type CreatePayeeArgs = z.output<typeof CreatePayeeArgsSchema>

export const UpdatePayeeArgsSchema = z.strictObject({
  id: PathIdSchema,
  name: NameSchema.optional(),
  categoryId: UlidSchema.nullable().optional(),
})
export type UpdatePayeeArgs = z.output<typeof UpdatePayeeArgsSchema>

// Tags.

export const CreateTagArgsSchema = z.strictObject({
  id: UlidSchema,
  name: NameSchema,
  color: ColorSchema.nullish(),
})
export type CreateTagArgs = z.output<typeof CreateTagArgsSchema>

export const UpdateTagArgsSchema = z.strictObject({
  id: PathIdSchema,
  name: NameSchema.optional(),
  color: ColorSchema.nullable().optional(),
})
export type UpdateTagArgs = z.output<typeof UpdateTagArgsSchema>

// Flags.

export const CreateFlagArgsSchema = z.strictObject({
  id: UlidSchema,
  name: NameSchema,
  color: ColorSchema,
  /** Omitted: after the last flag. */
  position: PositionSchema.optional(),
})
export type CreateFlagArgs = z.output<typeof CreateFlagArgsSchema>

export const UpdateFlagArgsSchema = z.strictObject({
  id: PathIdSchema,
  name: NameSchema.optional(),
  color: ColorSchema.optional(),
  position: PositionSchema.optional(),
})
export type UpdateFlagArgs = z.output<typeof UpdateFlagArgsSchema>
