import { z } from 'zod'
import { CentsSchema, DateSchema } from '../shared/schema.ts'

/** The longest cadence a needed-for-spending goal may have: ten years. */
export const GOAL_MAX_EVERY_MONTHS = 120

/** How a needed-for-spending goal counts money already in the category (YNAB's two choices). */
export type GoalFill = 'refill' | 'setAside'

/**
 * A category's goal as stored and as the API shows it, cents as decimal integer strings:
 * - `monthly`: assign `amountCents` every month (monthly funding);
 * - `targetBalance`: reach a balance of `targetCents`, no date;
 * - `targetBalanceByDate`: reach `targetCents` by `targetDate`, spread evenly over the months left;
 * - `neededForSpending`: have `amountCents` by `dueDate`, then again every `everyMonths` months,
 *   either refilling up to the amount (`refill`) or setting aside another amount (`setAside`).
 */
export type CategoryGoal =
  | { type: 'monthly'; amountCents: string }
  | { type: 'targetBalance'; targetCents: string }
  | { type: 'targetBalanceByDate'; targetCents: string; targetDate: string }
  | { type: 'neededForSpending'; amountCents: string; everyMonths: number; dueDate: string; fill: GoalFill }

/** A goal amount: a positive whole number of cents, kept as a decimal string. */
const GoalCentsSchema = CentsSchema.refine((n) => n > 0, 'Must be more than zero cents.').transform(String)

const GOAL_TYPES = 'monthly, targetBalance, targetBalanceByDate or neededForSpending'

/** A goal as a request body gives it; amounts may be JSON integers or integer strings. */
export const CategoryGoalSchema = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('monthly'), amountCents: GoalCentsSchema }),
    z.strictObject({ type: z.literal('targetBalance'), targetCents: GoalCentsSchema }),
    z.strictObject({
      type: z.literal('targetBalanceByDate'),
      targetCents: GoalCentsSchema,
      targetDate: DateSchema,
    }),
    z.strictObject({
      type: z.literal('neededForSpending'),
      amountCents: GoalCentsSchema,
      everyMonths: z
        .number()
        .int('Must be a whole number of months.')
        .min(1, 'Must be at least 1 month.')
        .max(GOAL_MAX_EVERY_MONTHS, `Must be at most ${GOAL_MAX_EVERY_MONTHS} months.`),
      dueDate: DateSchema,
      fill: z.enum(['refill', 'setAside'], { error: 'Must be refill or setAside.' }).default('refill'),
    }),
  ],
  { error: `Must be a goal whose type is ${GOAL_TYPES}.` },
)

/** The stored goal column, read back: null, or a goal the schema accepted when it was written. */
export function toCategoryGoal(stored: unknown): CategoryGoal | null {
  if (stored === null || stored === undefined) return null
  return (typeof stored === 'string' ? JSON.parse(stored) : stored) as CategoryGoal
}
