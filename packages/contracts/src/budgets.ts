import { z } from 'zod'

const Cents = z.string().describe('Integer cents as a decimal string.')
const Month = z.string().describe('A month, YYYY-MM.')
const Instant = z.string().describe('ISO 8601 instant in UTC.')

const categoryFields = {
  id: z.string(),
  name: z.string(),
  groupId: z.string(),
  kind: z
    .enum(['spending', 'income', 'payment'])
    .describe("payment: a credit card's payment category (its id is the card account's id)."),
  hidden: z.boolean(),
  deleted: z.boolean().describe('A deleted category is listed only while it still holds or moves money.'),
  carryOverspending: z
    .boolean()
    .describe(
      "Cash overspending stays in the category instead of coming out of next month's Ready to Assign.",
    ),
  paymentAccountId: z.string().nullable().describe('For a payment category, the credit account it pays.'),
  carriedInCents: Cents.describe('What rolled in from the month before.'),
  assignedCents: Cents,
  activityCents: Cents,
  availableCents: Cents.describe('carriedIn + assigned + activity.'),
  cashOverspendingCents: Cents.describe('The part of a negative available paid from cash (0 or negative).'),
  creditOverspendingCents: Cents.describe(
    'The part of a negative available that is uncovered card spending.',
  ),
  state: z.enum(['overspent', 'underfunded', 'funded', 'zero', 'income']),
  goal: z
    .object({
      type: z.enum(['monthly', 'targetBalance', 'targetBalanceByDate', 'neededForSpending']),
      suggestedCents: Cents.describe('What the goal wants assigned this month in all.'),
      underfundedCents: Cents.describe('suggested - assigned, at least 0.'),
      neededCents: Cents.describe(
        "The goal's whole target that progress is measured against (a target balance, or this month's amount for a monthly goal), not what this month still needs: that is `underfundedCents`.",
      ),
      fundedCents: Cents.describe('What counts toward needed now.'),
      progressBasisPoints: z.number().int().describe('funded / needed in basis points, 0 to 10000.'),
      dueDate: z.string().nullable().describe('YYYY-MM-DD; null for a balance goal without a date.'),
      monthsLeft: z.number().int().nullable(),
    })
    .nullable()
    .describe("The category's goal measured in this month; null without a goal."),
}

export const BudgetCategorySchema = z.object(categoryFields).meta({ id: 'BudgetCategory' })

const groupFields = {
  id: z.string(),
  name: z.string(),
  isIncome: z.boolean(),
  hidden: z.boolean(),
  deleted: z.boolean(),
  assignedCents: Cents,
  activityCents: Cents,
  availableCents: Cents,
}

export const BudgetGroupSchema = z
  .object({ ...groupFields, categories: z.array(BudgetCategorySchema) })
  .meta({ id: 'BudgetGroup' })

export const BudgetMonthSchema = z
  .object({
    month: Month,
    currency: z.string().describe("The household's base currency; only accounts in it are budgeted."),
    readyToAssignCents: Cents.describe(
      'Carried in + income + uncategorized - overspent last month - assigned - assigned in future months.',
    ),
    readyToAssignCarriedInCents: Cents,
    incomeCents: Cents.describe('Rows in income categories this month.'),
    uncategorizedCents: Cents.describe(
      'Uncategorized rows on cash accounts this month (opening balances among them).',
    ),
    overspentLastMonthCents: Cents.describe(
      'Deprecated: the same figure as `overspendingLastMonthCents` with the opposite sign (0 or positive).',
    ),
    overspendingLastMonthCents: Cents.describe(
      "Last month's cash overspending, taken from Ready to Assign this month: 0 or negative, the sign every overspending field has.",
    ),
    assignedCents: Cents,
    assignedInFutureCents: Cents,
    activityCents: Cents,
    availableCents: Cents,
    cashOverspendingCents: Cents,
    creditOverspendingCents: Cents,
    underfundedCents: Cents.describe(
      "What the month's goals still want assigned: the sum of every live category's `goal.underfundedCents`.",
    ),
    groups: z.array(BudgetGroupSchema),
  })
  .meta({ id: 'BudgetMonth', description: 'A month of the budget. See docs/budgets.md.' })

export const BudgetCategoryMonthSchema = z
  .object({ month: Month, ...categoryFields, group: z.object(groupFields) })
  .meta({ id: 'BudgetCategoryMonth' })

export const BudgetCellSchema = z
  .object({ month: Month, categoryId: z.string(), assignedCents: Cents })
  .meta({ id: 'BudgetCell' })

export const BudgetMoveSchema = z
  .object({ from: BudgetCellSchema, to: BudgetCellSchema })
  .meta({ id: 'BudgetMove' })

export const BudgetCategoryDeletionSchema = z
  .object({
    month: Month,
    categoryId: z.string(),
    movedCents: Cents.describe(
      'What the deleted category held that month, now in the other category (negative: overspending the other covered).',
    ),
    moveTo: BudgetCellSchema.nullable().describe("The receiving category's cell; null when nothing moved."),
  })
  .meta({ id: 'BudgetCategoryDeletion' })

export const BudgetMonthChangeSchema = z
  .object({
    month: Month,
    sourceMonth: Month.optional(),
    changed: z.number().int().describe('How many categories changed.'),
  })
  .meta({ id: 'BudgetMonthChange' })

export const BudgetHistoryEntrySchema = z
  .object({
    id: z.string(),
    month: Month,
    categoryId: z.string(),
    kind: z.enum(['assign', 'move', 'copy', 'reset', 'auto_assign']),
    previousCents: Cents,
    assignedCents: Cents,
    deltaCents: Cents,
    counterpartCategoryId: z.string().nullable().describe('The other category of a move.'),
    userId: z.string().nullable(),
    createdAt: Instant,
  })
  .meta({ id: 'BudgetHistoryEntry' })

export const BudgetHistorySchema = z
  .object({ items: z.array(BudgetHistoryEntrySchema) })
  .meta({ id: 'BudgetHistory', description: 'Newest first.' })

export const BudgetAutoAssignSchema = z
  .object({
    month: Month,
    assigned: z.array(z.object({ categoryId: z.string(), previousCents: Cents, assignedCents: Cents })),
    readyToAssignCents: Cents.describe('What is left to assign afterwards.'),
  })
  .meta({ id: 'BudgetAutoAssign' })
