import { z } from 'zod'

const Instant = z.string().describe('ISO 8601 instant in UTC.')

export const RuleConditionSchema = z
  .object({
    field: z
      .enum([
        'payee_name',
        'imported_payee',
        'memo',
        'payee_id',
        'category_id',
        'account_id',
        'amount',
        'inflow',
        'outflow',
        'date',
      ])
      .describe('What the condition tests.'),
    op: z
      .string()
      .describe(
        'Text fields: is, isNot, contains, doesNotContain, matches (RE2), oneOf, notOneOf. Id fields: is, isNot, oneOf, notOneOf. ' +
          'amount, inflow, outflow: is, gt, gte, lt, lte, between, approx. date: is, before, after, onOrBefore, onOrAfter, approx.',
      ),
    value: z
      .unknown()
      .describe(
        'A text, an id (or null for none), a list for oneOf/notOneOf, cents as an integer string (between: {min, max}), ' +
          'or a day YYYY-MM-DD (is also takes YYYY-MM or YYYY).',
      ),
  })
  .meta({ id: 'RuleCondition' })

export const RulePredicateSchema = z
  .object({
    combinator: z.enum(['all', 'any']).describe('all: every condition must hold; any: at least one.'),
    conditions: z.array(RuleConditionSchema),
  })
  .meta({ id: 'RulePredicate' })

export const RuleActionSchema = z
  .object({
    setCategoryId: z.string().optional(),
    setPayeeId: z.string().optional(),
    appendMemo: z.string().optional(),
    prependMemo: z.string().optional(),
    addTagIds: z.array(z.string()).optional(),
    addFlagIds: z.array(z.string()).optional(),
    stopProcessing: z.boolean().optional().describe('No later rule runs on a row this rule matched.'),
  })
  .meta({ id: 'RuleAction' })

export const RuleSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    predicate: RulePredicateSchema,
    action: RuleActionSchema,
    enabled: z.boolean(),
    priority: z.number().int().describe('Lower runs first; ties run in creation order.'),
    learned: z
      .boolean()
      .describe(
        'Made by learning from how the household categorizes a payee, and not changed since; any update makes it an ordinary rule.',
      ),
    createdAt: Instant,
    updatedAt: Instant,
  })
  .meta({ id: 'Rule' })

export const RuleListSchema = z
  .object({ items: z.array(RuleSchema) })
  .meta({ id: 'RuleList', description: 'Ordered by priority, then created_at, then id.' })

const FieldChange = z.object({ from: z.string().nullable(), to: z.string().nullable() })

export const RuleChangesSchema = z
  .object({
    categoryId: FieldChange.optional(),
    payeeId: FieldChange.optional(),
    memo: FieldChange.optional(),
    addedTagIds: z.array(z.string()).optional(),
    addedFlagIds: z.array(z.string()).optional(),
  })
  .meta({ id: 'RuleChanges', description: 'The fields one rule changed on one transaction.' })

export const RuleRunResultSchema = z
  .object({
    examinedCount: z.number().int().describe('Rows tested: live, not reconciled, not system rows.'),
    changedCount: z.number().int().describe('Rows at least one rule changed.'),
    applicationCount: z.number().int().describe('(rule, row) pairs that changed something.'),
    items: z
      .array(
        z.object({
          transactionId: z.string(),
          applications: z.array(z.object({ ruleId: z.string(), changes: RuleChangesSchema })),
        }),
      )
      .describe('The changed rows by id, at most 500.'),
    truncated: z.boolean().describe('More rows changed than items lists.'),
  })
  .meta({ id: 'RuleRunResult' })

export const RuleApplicationSchema = z
  .object({
    id: z.string(),
    ruleId: z.string(),
    transactionId: z.string(),
    trigger: z.enum(['auto', 'manual']).describe('auto: on create or import; manual: by apply or apply-all.'),
    changes: RuleChangesSchema,
    appliedAt: Instant,
  })
  .meta({ id: 'RuleApplication' })

export const RuleApplicationListSchema = z
  .object({ items: z.array(RuleApplicationSchema) })
  .meta({ id: 'RuleApplicationList', description: 'Newest first, at most 500.' })
