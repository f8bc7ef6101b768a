import { z } from 'zod'

const Instant = z.string().describe('ISO 8601 instant in UTC.')
const Position = z.number().int().describe('Display position; lower comes first, ties broken by id.')
const Color = z.string().describe('A colour as #rrggbb, in lower case.')

const GoalCents = z.string().describe('Integer cents as a decimal string, more than zero.')
const GoalDay = z.string().describe('A calendar day, YYYY-MM-DD.')

/** A category's budget goal; `type` says which. See docs/budgets.md, Goals. */
export const CategoryGoalSchema = z
  .discriminatedUnion('type', [
    z
      .object({ type: z.literal('monthly'), amountCents: GoalCents })
      .meta({ id: 'MonthlyGoal', description: 'Monthly funding: assign amountCents every month.' }),
    z
      .object({ type: z.literal('targetBalance'), targetCents: GoalCents })
      .meta({ id: 'TargetBalanceGoal', description: 'Reach a balance of targetCents, with no date.' }),
    z.object({ type: z.literal('targetBalanceByDate'), targetCents: GoalCents, targetDate: GoalDay }).meta({
      id: 'TargetBalanceByDateGoal',
      description:
        'Reach a balance of targetCents by targetDate, in equal monthly shares rounded up to the cent.',
    }),
    z
      .object({
        type: z.literal('neededForSpending'),
        amountCents: GoalCents,
        everyMonths: z.number().int().min(1).max(120).describe('The cadence: 1 monthly, 12 yearly.'),
        dueDate: GoalDay.describe('The first due date; later ones follow every everyMonths months.'),
        fill: z
          .enum(['refill', 'setAside'])
          .describe('refill: up to amountCents by each due date; setAside: another amountCents each cycle.'),
      })
      .meta({
        id: 'NeededForSpendingGoal',
        description: 'Have amountCents by each due date, repeating every everyMonths months.',
      }),
  ])
  .meta({ id: 'CategoryGoal' })

export const CategorySchema = z
  .object({
    id: z.string(),
    groupId: z.string(),
    name: z.string(),
    position: Position,
    hidden: z.boolean(),
    goal: CategoryGoalSchema.nullable().describe('The budget goal; null for none.'),
    carryOverspending: z
      .boolean()
      .describe(
        'Cash overspending stays in the category into next month instead of leaving Ready to Assign.',
      ),
    deletedAt: Instant.nullable()
      .optional()
      .describe(
        'Only when the list was asked to include deleted categories: when it was deleted; null while live.',
      ),
    createdAt: Instant,
    updatedAt: Instant,
  })
  .meta({ id: 'Category' })

export const CategoryListSchema = z
  .object({ items: z.array(CategorySchema) })
  .meta({ id: 'CategoryList', description: 'Ordered by group position, group id, position, id.' })

const categoryGroupFields = {
  id: z.string(),
  name: z.string(),
  position: Position,
  hidden: z.boolean(),
  isIncome: z.boolean().describe('Income groups hold the categories money arrives in.'),
  createdAt: Instant,
  updatedAt: Instant,
}

/** A group without its categories, as the starter pack reports it. */
export const CategoryGroupSummarySchema = z.object(categoryGroupFields).meta({ id: 'CategoryGroupSummary' })

export const CategoryGroupSchema = z
  .object({
    ...categoryGroupFields,
    categories: z.array(CategorySchema).describe("The group's live categories, in order."),
  })
  .meta({ id: 'CategoryGroup' })

export const CategoryGroupListSchema = z
  .object({ items: z.array(CategoryGroupSchema) })
  .meta({ id: 'CategoryGroupList', description: 'Ordered by position, then id.' })

export const StarterPackResultSchema = z
  .object({
    language: z.string().describe('The pack language used: en, de, fr or es.'),
    created: z.object({ groups: z.array(CategoryGroupSummarySchema), categories: z.array(CategorySchema) }),
    skipped: z
      .object({ groups: z.array(CategoryGroupSummarySchema), categories: z.array(CategorySchema) })
      .describe('Existing live rows whose names matched: groups reused, categories left alone.'),
  })
  .meta({ id: 'StarterPackResult' })

export const PayeeSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    normalizedName: z.string().describe('Lower case, accents and punctuation folded; recomputed on rename.'),
    categoryId: z.string().nullable().describe('The category new transactions with this payee default to.'),
    createdAt: Instant,
    updatedAt: Instant,
    deletedAt: Instant.nullable()
      .optional()
      .describe(
        'Only when the list was asked to include deleted payees: when it was deleted; null while live.',
      ),
  })
  .meta({ id: 'Payee' })

export const PayeeListSchema = z
  .object({ items: z.array(PayeeSchema) })
  .meta({ id: 'PayeeList', description: 'Ordered by normalized name, then id.' })

export const TagSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    color: Color.nullable(),
    createdAt: Instant,
    updatedAt: Instant,
  })
  .meta({ id: 'Tag' })

export const TagListSchema = z
  .array(TagSchema)
  .meta({ id: 'TagList', description: 'A bare array, ordered by name ignoring case, then id.' })

export const FlagSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    color: Color,
    position: Position,
    createdAt: Instant,
    updatedAt: Instant,
  })
  .meta({ id: 'Flag' })

export const FlagListSchema = z
  .object({ items: z.array(FlagSchema) })
  .meta({ id: 'FlagList', description: 'Ordered by position, then id.' })
